import HTTPTypes
import ImgviewFetching

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A response head — status and headers as a server chose them — through everything that reads one.
///
/// The input is text: a status code on the first line, then `Name: value` lines (bytes that are
/// not UTF-8 arrive replaced, as URLSession hands them over).
enum HTTPMetadataFuzzing {
    private static let url = URL(string: "http://127.0.0.1:8080/photos/a.jpg")!
    /// A whole second: the cache stores times to the second.
    private static let now = Date(timeIntervalSince1970: 1_763_700_000)

    static func run(_ bytes: [UInt8]) {
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let status = lines.first.flatMap { Int($0.trimmingSpaces()) } ?? 200
        var headerLines: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headerLines.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingSpaces()))
        }
        var head = ResponseHead(status: status, headerLines: headerLines, url: url, expectedLength: nil)
        head.expectedLength = head[.contentLength].flatMap { Int64($0) }

        checkContentLength(head)
        checkFreshness(head)
        checkRetry(head)
        checkMessages(head)
        checkRanges(head)
    }

    /// A Content-Range is read into a range that makes sense or not at all, and whether a 206 or
    /// 416 continues kept bytes never crashes, whatever it says.
    private static func checkRanges(_ head: ResponseHead) {
        if let text = head[.contentRange], let range = ContentRange(text) {
            if let first = range.first, let last = range.last {
                precondition(first >= 0 && first <= last, "a range that ends before it starts")
                if let complete = range.complete { precondition(last < complete, "a range past the body's end") }
            } else {
                precondition(range.first == nil && range.last == nil && range.complete != nil, "half a range")
            }
        }
        if let validators = PartialDownload.validators(for: head, url: url, now: now) {
            precondition(validators.ifRange != nil, "kept bytes with nothing to resume them by")
            precondition(validators.etag?.hasPrefix("W/") != true, "a weak tag in If-Range")
        }
        if case .some(.some(let total)) = PartialDownload.continuation(head, of: 1000, .init(url: url.absoluteString, startedAt: now)) {
            precondition(total > 1000, "a continuation that ends before the kept bytes")
        }
    }

    /// Whatever the headers say, the entry the cache would write reads back unchanged.
    private static func checkFreshness(_ head: ResponseHead) {
        guard case .store(let freshUntil) = Freshness().verdict(fields: head.fields, now: now) else { return }
        precondition(freshUntil >= now, "fresh until before the response arrived")
        precondition(freshUntil <= now.addingTimeInterval(Freshness.maxLifetime), "fresh for longer than the cap")
        let entry = CacheEntry(
            url: url, finalURL: url, contentType: head[.contentType], format: .jpeg, byteCount: 1, sha256: "00",
            etag: head[.eTag], lastModified: head[.lastModified], fetchedAt: now, lastAccessedAt: now,
            freshUntil: freshUntil)
        guard let metadata = try? DiskCache.metadata(of: entry) else { preconditionFailure("entry cannot be encoded") }
        let read = DiskCache.entry(fromMetadata: metadata)
        precondition(read == entry, "a cache entry changed between writing and reading")
    }

    /// Content-Length read strictly: a length is one every value agrees on, never negative; a
    /// refusal is one safe line.
    private static func checkContentLength(_ head: ResponseHead) {
        do {
            guard let length = try ResponseHead.contentLength(in: head.fields) else { return }
            precondition(length >= 0, "a negative Content-Length")
            let values = head.fields[values: .contentLength].flatMap { $0.split(separator: ",") }.map { $0.trimmingSpaces() }
            precondition(values.allSatisfy { Int64($0) == length }, "a Content-Length the values do not all say")
        } catch {
            TerminalSafety.requireSafe(ImagePipelineError.transport(url, error).message, "Content-Length refusal")
        }
    }

    private static func checkRetry(_ head: ResponseHead) {
        let policy = RetryPolicy(maxRetries: 3)
        if case .wait(let wait) = policy.askedWait(head[.retryAfter], now: now) {
            precondition(wait >= .zero && wait <= policy.maxRetryAfter, "an asked wait past its cap")
        }
        guard let delay = policy.delay(beforeRetry: 0, retryAfter: head[.retryAfter], now: now) else { return }
        precondition(delay >= .zero, "negative retry delay")
        precondition(delay <= max(policy.maxDelay, policy.maxRetryAfter), "retry delay past every cap")
    }

    /// Everything a user could read about this response is one safe line.
    private static func checkMessages(_ head: ResponseHead) {
        let errors: [ImagePipelineError] = [
            .httpStatus(url, status: head.status),
            .notFound(url, status: head.status),
            .notAnImage(url, contentType: head[.contentType]),
            .truncated(url, received: 0, expected: head.expectedLength),
        ]
        for error in errors { TerminalSafety.requireSafe(error.message, "pipeline error") }
    }
}
