import Foundation
import Testing

@testable import ImgviewFetching
@testable import ImgviewImaging
@testable import ImgviewSupport

/// The fast metadata reader agrees with `JSONDecoder` on every entry, and declines what it does not know.
@Suite("Cache entry parser")
struct CacheEntryParserTests {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = ISOTimestamp.encodingStrategy
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    func parse(_ text: String) -> CacheEntry? {
        Array(text.utf8).withUnsafeBufferPointer { CacheEntryParser.parse($0) }
    }

    func entry(etag: String?, dimensions: ImageDimensions?, contentType: String? = "image/png") -> CacheEntry {
        var entry = CacheEntry(
            url: URL(string: "https://example.org/a%20b/ü.png?q=1")!, finalURL: URL(string: "https://cdn.example.org/x.png")!,
            contentType: contentType, format: .png, byteCount: 1_234_567, sha256: String(repeating: "ab", count: 32), etag: etag,
            lastModified: "Sat, 01 Nov 2025 10:00:00 GMT", fetchedAt: Date(timeIntervalSince1970: 1_763_000_000),
            lastAccessedAt: Date(timeIntervalSince1970: 951_782_400), freshUntil: Date(timeIntervalSince1970: 4_102_444_799),
            dimensions: dimensions)
        entry.revalidations = 7
        return entry
    }

    @Test func agreesWithTheEncoderOnEveryShape() throws {
        let entries = [
            entry(etag: "\"abc\"", dimensions: ImageDimensions(width: 3840, height: 2400)),
            entry(etag: nil, dimensions: nil, contentType: nil),
            entry(
                etag: "W/\"quote \\\" backslash \\\\ tab \t newline \n bell \u{7} é 😀\"", dimensions: ImageDimensions(width: 1, height: 1)),
        ]
        for original in entries {
            let text = String(decoding: try Self.encoder.encode(original), as: UTF8.self)
            #expect(parse(text) == original, "\(text)")
            // Pretty-printed, in another key order, with an unknown key: still understood.
            let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as! [String: Any]
            var shuffled = object
            shuffled["future"] = ["nested": [1, 2, ["x": true]], "n": NSNull()]
            let pretty = try JSONSerialization.data(withJSONObject: shuffled, options: [.prettyPrinted])
            #expect(parse(String(decoding: pretty, as: UTF8.self)) == original)
        }
    }

    /// A damaged or hand-written entry may say any Int of milliseconds: it is written back as read,
    /// not through a Double, which rounds past 2⁵³ and cannot become an Int again at 2⁶³.
    @Test func anAnimationOfAnyMillisecondsIsWrittenBackAsRead() throws {
        for milliseconds in [Int.max, Int.max - 1, 9_007_199_254_740_993, Int.min, 2400] {
            var original = entry(etag: nil, dimensions: ImageDimensions(width: 4, height: 4))
            original.animation = AnimationSummary(frameCount: 2, duration: .milliseconds(milliseconds), loopCount: 0)
            let metadata = try DiskCache.metadata(of: original)
            #expect(String(decoding: metadata, as: UTF8.self).contains("\"milliseconds\":\(milliseconds)"))
            #expect(DiskCache.entry(fromMetadata: metadata) == original, "\(milliseconds)")
        }
    }

    /// An entry may say any size; one no picture has is no probe (decoders would size their
    /// buffers by it), and the body is probed again.
    @Test func anEntryOfNoPicturesSizeHasNoProbe() {
        for size in [ImageDimensions(width: -1, height: 4), ImageDimensions(width: 4, height: 0), ImageDimensions(width: 3, height: 4)] {
            var original = entry(etag: nil, dimensions: nil)
            original.probe = ImageProbe(format: .png, storedSize: size, orientation: .right)
            #expect((original.probe != nil) == (size.width > 0 && size.height > 0), "\(size)")
        }
    }

    @Test func datesMatchFoundation() {
        let formatter = ISO8601DateFormatter()
        for text in [
            "1970-01-01T00:00:00Z", "2000-02-29T23:59:59Z", "2025-11-21T15:14:00Z", "2100-03-01T00:00:00Z", "1969-12-31T23:59:59Z",
        ] {
            #expect(CacheEntryParser.date(text) == formatter.date(from: text), "\(text)")
        }
        #expect(CacheEntryParser.date("2025-11-21T15:14:00.5Z") == nil)
        #expect(CacheEntryParser.date("2025-13-21T15:14:00Z") == nil)
        #expect(CacheEntryParser.date("2025-11-21 15:14:00Z") == nil)
        #expect(CacheEntryParser.date("2025-02-31T00:00:00Z") == nil)
        // One calendar for every year: proleptic Gregorian, where Foundation's formatter switched to
        // the Julian calendar before October 1582 (found by the fuzzer when the two readers differed).
        #expect(CacheEntryParser.date("1013-11-21T17:24:29Z") == Date(timeIntervalSince1970: -30_171_940_531))
        #expect(ISOTimestamp.string(from: Date(timeIntervalSince1970: -30_171_940_531)) == "1013-11-21T17:24:29Z")
    }

    @Test func timestampsPrintAsFoundationPrintsThem() {
        let formatter = ISO8601DateFormatter()
        for seconds in [0.0, 951_782_400, 1_763_000_000.75, 4_102_444_799, -1] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(ISOTimestamp.string(from: date) == formatter.string(from: date))
            #expect(CacheEntryParser.date(ISOTimestamp.string(from: date)) == Date(timeIntervalSince1970: seconds.rounded(.down)))
        }
        // Years are kept to four digits: a date past 9999 (only a damaged file has one) prints as the last second of 9999.
        #expect(ISOTimestamp.string(from: Date(timeIntervalSince1970: 1e300)) == "9999-12-31T23:59:59Z")
        #expect(ISOTimestamp.string(from: Date(timeIntervalSince1970: -1e300)) == "0000-01-01T00:00:00Z")
    }

    @Test func localTimestampsPrintAsStrftimePrintsThem() {
        for seconds in [0, 951_782_400, 1_763_000_000, 4_102_444_799] {
            var time = time_t(seconds)
            var parts = tm()
            localtime_r(&time, &parts)
            var buffer = [CChar](repeating: 0, count: 32)
            let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S", &parts)
            let expected = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            #expect(ISOTimestamp.localString(fromSeconds: seconds) == expected)
        }
    }

    @Test func declinesWhatItDoesNotKnowAndDiskCacheFallsBack() throws {
        let good = String(decoding: try Self.encoder.encode(entry(etag: nil, dimensions: nil)), as: UTF8.self)
        // Fractional seconds: not the one form the cache writes, so neither reader takes the entry.
        let fractional = good.replacingOccurrences(of: "2025-11-13T02:13:20Z", with: "2025-11-13T02:13:20.000Z")
        #expect(fractional != good)
        #expect(parse(fractional) == nil)
        #expect(DiskCache.decodeEntry(Data(fractional.utf8)) == nil)
        // A float: valid for JSONDecoder, not for the fast reader.
        let withFloat = good.replacingOccurrences(of: "{", with: "{\"ratio\":1.5,")
        #expect(parse(withFloat) == nil)
        #expect(DiskCache.decodeEntry(Data(withFloat.utf8)) != nil)

        // Invalid for both.
        for broken in [
            "", "{", good + "x", good.replacingOccurrences(of: "\"sha256\"", with: "\"sha\""),
            good.replacingOccurrences(of: "\"byteCount\":1234567", with: "\"byteCount\":\"1\""),
            good.replacingOccurrences(of: "\"format\":\"png\"", with: "\"format\":\"xcf\""), "[]", "null",
        ] {
            #expect(parse(broken) == nil, "\(broken)")
            #expect(DiskCache.decodeEntry(Data(broken.utf8)) == nil, "\(broken)")
        }
    }

    @Test func everyTruncationIsDeclinedNeverACrash() throws {
        let text = Array(try Self.encoder.encode(entry(etag: "\"é\\u\"", dimensions: ImageDimensions(width: 2, height: 3))))
        for length in 0..<text.count {
            let prefix = Array(text.prefix(length))
            #expect(prefix.withUnsafeBufferPointer { CacheEntryParser.parse($0) } == nil)
        }
    }
}
