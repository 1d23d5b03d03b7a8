import HTTPTypes
import Testing

@testable import ImgviewFetching

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

@Suite("Content-Range and what continues kept bytes")
struct ContentRangeTests {
    @Test func theFormsOfRFC9110() {
        #expect(ContentRange("bytes 600-999/1000") == ContentRange(first: 600, last: 999, complete: 1000))
        #expect(ContentRange("Bytes  0-0/*") == ContentRange(first: 0, last: 0, complete: nil))
        #expect(ContentRange("bytes */1000") == ContentRange(first: nil, last: nil, complete: 1000))
        for bad in [
            "bytes */*", "items 0-1/2", "bytes 5-4/10", "bytes 0-10/10", "bytes -1-4/10", "bytes 0-4", "bytes 1-2/3, 4-5/6",
            "bytes 0-1/99999999999999999999", "",
        ] {
            #expect(ContentRange(bad) == nil, "\(bad)")
        }
    }

    static let url = URL(string: "http://127.0.0.1/a.jpg")!
    static let kept = PartialDownload.Validators(url: url.absoluteString, etag: "\"v1\"", total: 1000, startedAt: Date())

    func head(_ status: Int, _ fields: [String: String], length: Int64? = nil) -> ResponseHead {
        ResponseHead(status: status, headerLines: fields.map { ($0.key, $0.value) }, url: Self.url, expectedLength: length)
    }

    @Test func onlyTheRestOfTheSameVersionContinues() {
        let good = head(206, ["Content-Range": "bytes 600-999/1000", "ETag": "\"v1\""], length: 400)
        #expect(PartialDownload.continuation(good, of: 600, Self.kept) == .some(1000))
        #expect(PartialDownload.continuation(good, of: 500, Self.kept) == nil, "not from where the kept bytes end")
        let changed = head(206, ["Content-Range": "bytes 600-999/1000", "ETag": "\"v2\""], length: 400)
        #expect(PartialDownload.continuation(changed, of: 600, Self.kept) == nil)
        let longer = head(206, ["Content-Range": "bytes 600-1999/2000", "ETag": "\"v1\""], length: 1400)
        #expect(PartialDownload.continuation(longer, of: 600, Self.kept) == nil)
        let gzipped = head(206, ["Content-Range": "bytes 600-999/1000", "Content-Encoding": "gzip"])
        #expect(PartialDownload.continuation(gzipped, of: 600, Self.kept) == nil)
        let lying = head(206, ["Content-Range": "bytes 600-999/1000"], length: 10)
        #expect(PartialDownload.continuation(lying, of: 600, Self.kept) == nil)
    }

    @Test func onlyBodiesThatCanBeContinuedAreKept() {
        let now = Date()
        let resumable = head(200, ["Accept-Ranges": "bytes", "ETag": "\"v1\""], length: 1000)
        #expect(PartialDownload.validators(for: resumable, url: Self.url, now: now)?.ifRange == "\"v1\"")
        let dated = head(200, ["Accept-Ranges": "bytes", "Last-Modified": "Tue, 25 Nov 2025 10:00:00 GMT"])
        #expect(PartialDownload.validators(for: dated, url: Self.url, now: now)?.ifRange == "Tue, 25 Nov 2025 10:00:00 GMT")
        for fields in [
            ["ETag": "\"v1\""],
            ["Accept-Ranges": "none", "ETag": "\"v1\""],
            ["Accept-Ranges": "bytes", "ETag": "W/\"v1\"", "Last-Modified": "Tue, 25 Nov 2025 10:00:00 GMT"],
            ["Accept-Ranges": "bytes"],
            ["Accept-Ranges": "bytes", "ETag": "\"v1\"", "Content-Encoding": "gzip"],
        ] {
            #expect(PartialDownload.validators(for: head(200, fields), url: Self.url, now: now) == nil, "\(fields)")
        }
    }
}
