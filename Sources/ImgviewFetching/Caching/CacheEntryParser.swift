import ImgviewImaging
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads entry metadata files quickly: `cache ls` and `cache stats` read ten thousand of them.
///
/// `JSONDecoder` with ISO 8601 dates costs tens of microseconds per entry on Linux. This reader
/// understands exactly what `CacheEntry` encodes to: one object whose values are strings,
/// integers, booleans, `null`, the `dimensions` and `animation` objects, dates in the `2025-11-21T15:14:00Z` form, any
/// key order, unknown keys skipped. It requires the keys the synthesized decoder requires.
/// Anything it does not understand yields nil, and the caller falls back to `JSONDecoder`,
/// so the two never disagree about a valid file; they only differ in speed.
struct CacheEntryParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The entry in `bytes`, or nil when they are not in the form described above.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> CacheEntry? {
        var parser = CacheEntryParser(bytes)
        return parser.entry()
    }

    private mutating func entry() -> CacheEntry? {
        var url: String?
        var finalURL: String?
        var contentType: String??
        var format: ImageFormat?
        var byteCount: Int64?
        var sha256: String?
        var etag: String??
        var lastModified: String??
        var fetchedAt: Date?
        var lastAccessedAt: Date?
        var freshUntil: Date?
        var revalidations: Int?
        var dimensions: ImageDimensions??
        var orientation: ImageOrientation??
        var isAnimated: Bool??
        var animation: AnimationSummary??
        var hasColorProfile: Bool??

        guard consume(UInt8(ascii: "{")) else { return nil }
        var first = true
        while true {
            skipSpace()
            if consume(UInt8(ascii: "}")) { break }
            if !first { guard consume(UInt8(ascii: ",")) else { return nil } }
            first = false
            guard let key = string(), consume(UInt8(ascii: ":")) else { return nil }
            skipSpace()
            // A key twice: JSONDecoder decides which one counts.
            switch key {
            case "url":
                guard url == nil else { return nil }
                url = string()
            case "finalURL":
                guard finalURL == nil else { return nil }
                finalURL = string()
            case "contentType":
                guard contentType == nil else { return nil }
                contentType = optionalString()
            case "format":
                guard format == nil else { return nil }
                format = string().flatMap(ImageFormat.init(rawValue:))
            case "byteCount":
                guard byteCount == nil else { return nil }
                byteCount = integer().map(Int64.init)
            case "sha256":
                guard sha256 == nil else { return nil }
                sha256 = string()
            case "etag":
                guard etag == nil else { return nil }
                etag = optionalString()
            case "lastModified":
                guard lastModified == nil else { return nil }
                lastModified = optionalString()
            case "fetchedAt":
                guard fetchedAt == nil else { return nil }
                fetchedAt = string().flatMap(Self.date)
            case "lastAccessedAt":
                guard lastAccessedAt == nil else { return nil }
                lastAccessedAt = string().flatMap(Self.date)
            case "freshUntil":
                guard freshUntil == nil else { return nil }
                freshUntil = string().flatMap(Self.date)
            case "revalidations":
                guard revalidations == nil else { return nil }
                revalidations = integer()
            case "dimensions":
                guard dimensions == nil else { return nil }
                if consumeLiteral("null") { dimensions = .some(nil) } else { dimensions = size() }
            case "orientation":
                guard orientation == nil else { return nil }
                orientation = consumeLiteral("null") ? .some(nil) : integer().flatMap(ImageOrientation.init(rawValue:)).map { .some($0) }
            case "isAnimated":
                guard isAnimated == nil else { return nil }
                isAnimated = consumeLiteral("null") ? .some(nil) : boolean().map { .some($0) }
            case "hasColorProfile":
                guard hasColorProfile == nil else { return nil }
                hasColorProfile = consumeLiteral("null") ? .some(nil) : boolean().map { .some($0) }
            case "animation":
                guard animation == nil else { return nil }
                if consumeLiteral("null") { animation = .some(nil) } else { animation = animationSummary() }
            default:
                guard skipValue() else { return nil }
                continue
            }
            // A key present with a value of the wrong shape: leave the verdict to JSONDecoder.
            let parsed: Bool
            switch key {
            case "url": parsed = url != nil
            case "finalURL": parsed = finalURL != nil
            case "contentType": parsed = contentType != nil
            case "format": parsed = format != nil
            case "byteCount": parsed = byteCount != nil
            case "sha256": parsed = sha256 != nil
            case "etag": parsed = etag != nil
            case "lastModified": parsed = lastModified != nil
            case "fetchedAt": parsed = fetchedAt != nil
            case "lastAccessedAt": parsed = lastAccessedAt != nil
            case "freshUntil": parsed = freshUntil != nil
            case "revalidations": parsed = revalidations != nil
            case "dimensions": parsed = dimensions != nil
            case "orientation": parsed = orientation != nil
            case "isAnimated": parsed = isAnimated != nil
            case "hasColorProfile": parsed = hasColorProfile != nil
            default: parsed = animation != nil
            }
            guard parsed else { return nil }
        }
        skipSpace()
        // Parsing a URL is the dearest step left; the final URL is usually the same text.
        guard index == bytes.count, let url = url.flatMap(URL.init(string:)),
            let finalURL = finalURL == url.absoluteString ? url : finalURL.flatMap(URL.init(string:)), let format, let byteCount,
            let sha256, let fetchedAt, let lastAccessedAt,
            let freshUntil, let revalidations
        else { return nil }
        var entry = CacheEntry(
            url: url, finalURL: finalURL, contentType: contentType ?? nil, format: format, byteCount: byteCount, sha256: sha256,
            etag: etag ?? nil, lastModified: lastModified ?? nil, fetchedAt: fetchedAt, lastAccessedAt: lastAccessedAt,
            freshUntil: freshUntil, dimensions: dimensions ?? nil)
        entry.revalidations = revalidations
        entry.orientation = orientation ?? nil
        entry.isAnimated = isAnimated ?? nil
        entry.animation = animation ?? nil
        entry.hasColorProfile = hasColorProfile ?? nil
        return entry
    }

    // MARK: Values

    /// `{"frameCount": 24, "milliseconds": 2400, "loopCount": 0}` in any order.
    private mutating func animationSummary() -> AnimationSummary?? {
        guard consume(UInt8(ascii: "{")) else { return nil }
        var values: [String: Int] = [:]
        var first = true
        while true {
            skipSpace()
            if consume(UInt8(ascii: "}")) { break }
            if !first { guard consume(UInt8(ascii: ",")) else { return nil } }
            first = false
            guard let key = string(), consume(UInt8(ascii: ":")) else { return nil }
            skipSpace()
            guard ["frameCount", "milliseconds", "loopCount"].contains(key), values[key] == nil, let value = integer() else { return nil }
            values[key] = value
        }
        guard let frames = values["frameCount"], let milliseconds = values["milliseconds"], let loops = values["loopCount"] else {
            return nil
        }
        return .some(AnimationSummary(frameCount: frames, duration: .milliseconds(milliseconds), loopCount: loops))
    }

    /// `true` or `false`.
    private mutating func boolean() -> Bool? {
        if consumeLiteral("true") { return true }
        if consumeLiteral("false") { return false }
        return nil
    }

    /// `{"height": 1, "width": 2}` in any order.
    private mutating func size() -> ImageDimensions?? {
        guard consume(UInt8(ascii: "{")) else { return nil }
        var width: Int?
        var height: Int?
        var first = true
        while true {
            skipSpace()
            if consume(UInt8(ascii: "}")) { break }
            if !first { guard consume(UInt8(ascii: ",")) else { return nil } }
            first = false
            guard let key = string(), consume(UInt8(ascii: ":")) else { return nil }
            skipSpace()
            switch key {
            case "width": width = integer()
            case "height": height = integer()
            default: return nil
            }
        }
        guard let width, let height else { return nil }
        return .some(ImageDimensions(width: width, height: height))
    }

    /// A string or `null`: `.some(nil)` for null, nil when neither.
    private mutating func optionalString() -> String?? {
        if consumeLiteral("null") { return .some(nil) }
        return string().map { .some($0) }
    }

    private mutating func string() -> String? {
        skipSpace()
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = index
        var isASCII = true
        // The common case: no escapes, so the bytes are the string (and ASCII needs no validation).
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                defer { index += 1 }
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                return isASCII ? String(decoding: slice, as: UTF8.self) : String(validating: slice, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { return nil }
            if byte >= 0x80 { isASCII = false }
            index += 1
        }
        guard index < bytes.count else { return nil }
        var scalars = String.UnicodeScalarView()
        guard let prefix = String(validating: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self) else { return nil }
        scalars.append(contentsOf: prefix.unicodeScalars)
        var pending: [UInt8] = []
        func flush() -> Bool {
            guard !pending.isEmpty else { return true }
            guard let text = String(validating: pending, as: UTF8.self) else { return false }
            scalars.append(contentsOf: text.unicodeScalars)
            pending.removeAll(keepingCapacity: true)
            return true
        }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return flush() ? String(scalars) : nil
            case UInt8(ascii: "\\"):
                guard flush(), index < bytes.count else { return nil }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{8}")
                case UInt8(ascii: "f"): scalars.append("\u{C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    guard let scalar = unicodeEscape() else { return nil }
                    scalars.append(scalar)
                default: return nil
                }
            case 0..<0x20:
                return nil
            default:
                pending.append(byte)
            }
        }
        return nil
    }

    /// The scalar of `XXXX` after `\u`, joining a surrogate pair; nil for a lone surrogate.
    private mutating func unicodeEscape() -> Unicode.Scalar? {
        guard let high = hex4() else { return nil }
        if (0xD800..<0xDC00).contains(high) {
            guard consume(UInt8(ascii: "\\")), consume(UInt8(ascii: "u")), let low = hex4(), (0xDC00..<0xE000).contains(low) else {
                return nil
            }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        }
        return Unicode.Scalar(high)
    }

    private mutating func hex4() -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = Character(Unicode.Scalar(bytes[index])).hexDigitValue else { return nil }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// A JSON integer; nil for fractions, exponents and values past `Int`.
    private mutating func integer() -> Int? {
        skipSpace()
        let negative = consume(UInt8(ascii: "-"))
        let firstDigit = index
        var value = 0
        var digits = 0
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int(bytes[index] - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
            digits += 1
            index += 1
        }
        // JSON has no leading zeros ("042"): JSONDecoder refuses them, so the fast reader does too.
        guard digits > 0, digits == 1 || bytes[firstDigit] != UInt8(ascii: "0") else { return nil }
        if index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
            default: break
            }
        }
        return negative ? -value : value
    }

    /// Skips any JSON value of a key this reader does not use; false when it is malformed.
    private mutating func skipValue(depth: Int = 0) -> Bool {
        skipSpace()
        guard index < bytes.count, depth < 32 else { return false }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            return string() != nil
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let close = bytes[index] == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
            let isObject = close == UInt8(ascii: "}")
            index += 1
            var first = true
            while true {
                skipSpace()
                if consume(close) { return true }
                if !first { guard consume(UInt8(ascii: ",")) else { return false } }
                first = false
                if isObject {
                    guard string() != nil, consume(UInt8(ascii: ":")) else { return false }
                }
                guard skipValue(depth: depth + 1) else { return false }
            }
        case UInt8(ascii: "t"): return consumeLiteral("true")
        case UInt8(ascii: "f"): return consumeLiteral("false")
        case UInt8(ascii: "n"): return consumeLiteral("null")
        default:
            // Numbers of unused keys: only integers, to stay simple; others go to JSONDecoder.
            return integer() != nil
        }
    }

    // MARK: Bytes

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        skipSpace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func consumeLiteral(_ literal: StaticString) -> Bool {
        skipSpace()
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] { return false }
        index += count
        return true
    }

    /// `2025-11-21T15:14:00Z`, the one form the encoder writes and JSONDecoder is given too.
    static func date(_ text: String) -> Date? {
        ISOTimestamp.date(from: text)
    }
}
