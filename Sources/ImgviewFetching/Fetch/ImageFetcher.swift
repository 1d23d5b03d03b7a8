internal import Crypto
import HTTPTypes
import ImgviewImaging
import ImgviewSupport
import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// Fetches an image's bytes: the disk cache, then revalidation or a download with retries, then
/// the store. Stateless: the pipeline's fetch stage shares and cancels the fetches it runs.
public struct ImageFetcher: ImageFetching {
    public let configuration: Configuration

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// A failed status with what the retry logic needs from the response.
    private struct StatusFailure: Error {
        let error: ImagePipelineError
        let retryAfter: String?
    }

    public func fetch(_ request: ImageRequest, progress: @escaping TransferProgress, body: BodyTap?) async throws -> ImageResponse {
        let url = request.url
        switch url.scheme?.lowercased() {
        case "file":
            return try readLocalFile(request)
        case "http", "https":
            break
        default:
            throw ImagePipelineError.unsupportedURL(url)
        }

        var stale: CacheEntry?
        // Every request that consults the disk cache counts once in its counters (see CacheCounters).
        let countingDisk = request.cachePolicy == .useCache ? configuration.diskCache : nil
        if let disk = countingDisk, let entry = disk.entry(for: url) {
            if entry.isUsableWithoutAsking(offline: configuration.isOffline, at: configuration.now()) {
                if let response = try? readVerified(entry, request: request, source: .disk) {
                    // The body is verified already: an entry older than the probe gets it from there.
                    disk.recordHit(entry, probe: entry.probe == nil ? response.probe : nil)
                    return response
                }
                // The blob is gone or its bytes changed on disk: drop the entry and fetch again.
                try? disk.remove(url)
            } else {
                stale = entry
            }
        }
        if configuration.isOffline {
            countingDisk?.recordMiss()
            throw ImagePipelineError.offlineMiss(url)
        }
        let revalidating = stale
        do {
            let response = try await withOverallTimeout(url) {
                try await fetchWithRetries(request, revalidating: revalidating, progress: progress, body: body)
            }
            // A stored body counted its miss as it was stored, and a 304 its revalidation.
            if response.source == .network, !response.isCached { countingDisk?.recordMiss() }
            return response
        } catch {
            if !(error is CancellationError) { countingDisk?.recordMiss() }
            throw error
        }
    }

    public func discard(_ url: URL) {
        guard !url.isFileURL else { return }
        try? configuration.diskCache?.remove(url)
    }

    // MARK: Network

    private func withOverallTimeout<T: Sendable>(_ url: URL, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let limit = configuration.overallTimeout
        let clock = configuration.clock
        return try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await clock.sleep(for: limit)
                throw ImagePipelineError.timedOut(url, after: "overall limit of \(limit.formattedSeconds)")
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    private func fetchWithRetries(
        _ request: ImageRequest, revalidating stale: CacheEntry?, progress: @escaping TransferProgress,
        body: BodyTap?
    ) async throws -> ImageResponse {
        var retry = 0
        while true {
            do {
                return try await fetchOnce(request, revalidating: stale, progress: progress, body: body)
            } catch let failure as StatusFailure {
                guard failure.error.isTransient else { throw failure.error }
                if configuration.retry.askedWait(failure.retryAfter, now: configuration.now()) == .tooLong,
                    case .httpStatus(let url, let status) = failure.error, let retryAfter = failure.retryAfter
                {
                    throw ImagePipelineError.waitTooLong(url, status: status, retryAfter: retryAfter)
                }
                guard let delay = configuration.retry.delay(beforeRetry: retry, retryAfter: failure.retryAfter, now: configuration.now())
                else { throw failure.error }
                retry += 1
                try await configuration.clock.sleep(for: delay)
            } catch let error as ImagePipelineError where error.isTransient {
                guard let delay = configuration.retry.delay(beforeRetry: retry, retryAfter: nil, now: configuration.now()) else {
                    throw error
                }
                retry += 1
                try await configuration.clock.sleep(for: delay)
            }
        }
    }

    private func fetchOnce(
        _ request: ImageRequest, revalidating stale: CacheEntry?, progress: @escaping TransferProgress,
        body: BodyTap? = nil, resuming: Bool = true
    ) async throws -> ImageResponse {
        var fields: HTTPFields = [.userAgent: "imgview/0.1", .accept: "image/*, */*;q=0.5"]
        if let stale { fields.append(contentsOf: Revalidation.conditions(for: stale)) }
        // A new body goes where a later fetch can continue it; a revalidation has a whole one already.
        let partial = stale == nil ? configuration.diskCache?.partial(for: request.url) : nil
        if let partial, let (count, validators) = partial.resumable {
            if resuming, let condition = validators.ifRange {
                fields[.range] = "bytes=\(count)-"
                fields[.ifRange] = condition
                // Ranges count the bytes as sent: a compressed answer could not be continued.
                fields[.acceptEncoding] = "identity"
            } else {
                // Asked for whole: the kept bytes go, the file stays this download's.
                try? partial.restart(with: nil, encoder: DiskCache.encoder)
            }
        }
        let file = try partial?.file ?? makeTemporaryFile(for: request.url)
        let writer = BlobWriter(
            file: file, url: request.url, limit: configuration.maxDownloadBytes, maxEntry: configuration.maxEntryBytes,
            acceptsPartialContent: fields[.range] != nil, progress: progress, body: body, partial: partial, now: configuration.now())
        do {
            return try await transfer(
                request, with: writer, revalidating: stale, httpRequest: .get(request.url, fields: fields), progress: progress,
                body: body)
        } catch {
            guard let partial else {
                // Nothing of a failed transfer may stay behind, not even until the file's owner lets go.
                file.discard()
                throw error
            }
            writer.keepWhatArrived()
            if error is ResumeRejected {
                partial.discard()
                // A range nobody asked for, or asked for once already: the server's, not ours to retry.
                guard resuming, writer.resumedFrom == nil else {
                    throw ImagePipelineError.httpStatus(request.url, status: writer.head?.status ?? 206)
                }
                return try await fetchOnce(request, revalidating: stale, progress: progress, body: body, resuming: false)
            }
            // Bytes cut off on the way stay for the next fetch; those of a body that will never do go.
            if !Self.isCutShort(error) || !partial.isWorthKeeping { partial.discard() }
            throw error
        }
    }

    /// Whether a failure stopped a body on its way (a lost connection, a timeout, Ctrl-C) rather
    /// than found it wanting: only then are its bytes worth continuing.
    private static func isCutShort(_ error: any Error) -> Bool {
        switch error {
        case is CancellationError: true
        case let error as ImagePipelineError:
            switch error {
            case .truncated, .transport, .timedOut: true
            case .httpStatus: error.isTransient
            default: false
            }
        default: false
        }
    }

    private func transfer(
        _ request: ImageRequest, with writer: BlobWriter, revalidating stale: CacheEntry?, httpRequest: HTTPRequest,
        progress: @escaping TransferProgress, body: BodyTap?
    ) async throws -> ImageResponse {
        let url = request.url
        var head: ResponseHead
        do {
            head = try await configuration.dataLoader.load(httpRequest, into: writer)
        } catch {
            throw translate(error, url: url, writer: writer)
        }
        // A 206 nobody asked for is the server's fault (`meaning`); one that does not continue the kept bytes is rejected.
        if head.status == 206, httpRequest.headerFields[.range] != nil, writer.resumedFrom == nil {
            throw writer.partial == nil ? ImagePipelineError.httpStatus(url, status: 206) : ResumeRejected()
        }
        if head.status == 416, writer.partial?.resumable != nil {
            // Asked for the rest of a body that has no more: the kept bytes are all of it, or they are not of this body.
            guard writer.completeFromKeptBytes(head), let whole = writer.head else { throw ResumeRejected() }
            head = whole
        }

        switch try Self.meaning(of: head, for: httpRequest, url: url) {
        case .notModified:
            guard let stale, let disk = configuration.diskCache, Revalidation.notModified(head.fields, selects: stale) else {
                // A 304 about another representation renews nothing: ask for the body whole.
                return try await fetchOnce(request, revalidating: nil, progress: progress, body: body)
            }
            return try await renew(stale, with: head, in: disk, request: request, progress: progress, body: body)
        case .body:
            break
        }
        if let expected = writer.expectedTotal, writer.received < expected {
            throw ImagePipelineError.truncated(url, received: writer.received, expected: expected)
        }
        let file: TemporaryFile
        do {
            try writer.finish()
            // Whole now: the partial's names go, and the body is a download's file like any other.
            file = try writer.partial?.complete() ?? writer.file
        } catch {
            throw translate(error, url: url, writer: writer)
        }
        // One look at the body: what it is and, when nothing vouched for its length, whether it is
        // whole (it ended when the connection closed, as a cut one does too; or it came compressed
        // through a loader that cannot see the coding's end).
        let isLengthKnown = head.uncompressedLength != nil
        guard let probe = ImageProbe.read(fileAt: file.url, through: isLengthKnown ? .header : .whole) else {
            throw ImagePipelineError.notAnImage(url, contentType: head[.contentType])
        }
        if !isLengthKnown, probe.completeness == .truncated {
            throw ImagePipelineError.truncated(url, received: writer.received, expected: nil)
        }

        let now = configuration.now()
        let verdict = configuration.freshness.verdict(fields: head.fields, now: now)
        var freshUntil = now
        if case .store(let until) = verdict { freshUntil = until }
        // A body over the largest entry was not hashed: it has no digest (an empty one) and is not stored.
        let digest = writer.digest()
        let entry = CacheEntry(
            url: url, finalURL: head.url, contentType: head[.contentType], format: probe.format, byteCount: writer.received,
            sha256: digest ?? "", etag: head[.eTag], lastModified: head[.lastModified], fetchedAt: now,
            lastAccessedAt: now, freshUntil: freshUntil, probe: probe)

        var isStored = false
        if case .store = verdict, digest != nil, writer.received <= configuration.maxEntryBytes, let disk = configuration.diskCache {
            do {
                isStored = try disk.store(file, as: entry, countingMiss: request.cachePolicy == .useCache) != nil
            } catch {
                throw Self.storeFailure(error, url: url)
            }
        }
        // The file stays the body's home even once stored: another process clearing the cache cannot take it away.
        let body: ImageResponse.Body
        if entry.byteCount <= configuration.memoryItemLimit {
            body = .data(try Data(contentsOf: file.url))
        } else {
            body = .file(file.url, owner: file)
        }
        var response = ImageResponse(
            request: request, entry: entry, source: .network, body: body, elapsed: .zero, isCached: isStored, probe: probe)
        response.resumedFrom = writer.resumedFrom
        return response
    }

    /// What a response's status asks the fetcher to do.
    private enum Meaning {
        /// The body is the image.
        case body
        /// A 304: the stored body is still good, if the 304 is about it.
        case notModified
    }

    /// What `head` means as the answer to `request`, or the error it is.
    ///
    /// Statuses that do not fit the request are named as such: a 206 to a request for the whole
    /// body is not the image, a 304 to one that was not conditional has nothing to renew, and a
    /// redirect with no Location leads nowhere.
    private static func meaning(of head: ResponseHead, for request: HTTPRequest, url: URL) throws -> Meaning {
        let isConditional = request.headerFields[.ifNoneMatch] != nil || request.headerFields[.ifModifiedSince] != nil
        switch head.status {
        case 206 where request.headerFields[.range] == nil:
            throw ImagePipelineError.misusedStatus(url, status: 206, .partialContentUnasked)
        case 200..<300:
            return .body
        case 304:
            guard isConditional else { throw ImagePipelineError.misusedStatus(url, status: 304, .notModifiedUnasked) }
            return .notModified
        case let status where [301, 302, 303, 307, 308].contains(status) && head[.location] == nil:
            throw ImagePipelineError.misusedStatus(url, status: head.status, .redirectWithoutLocation)
        case 404, 410:
            throw ImagePipelineError.notFound(url, status: head.status)
        default:
            throw StatusFailure(error: .httpStatus(url, status: head.status), retryAfter: head[.retryAfter])
        }
    }

    /// A 304 about `stale`: the cached body is still good; renew its freshness and validators.
    private func renew(
        _ stale: CacheEntry, with head: ResponseHead, in disk: DiskCache, request: ImageRequest, progress: @escaping TransferProgress,
        body: BodyTap?
    ) async throws -> ImageResponse {
        let now = configuration.now()
        var renewed = stale
        if case .store(let until) = configuration.freshness.verdict(fields: head.fields, now: now) {
            renewed.freshUntil = until
        }
        renewed.etag = head[.eTag] ?? stale.etag
        renewed.lastModified = head[.lastModified] ?? stale.lastModified
        renewed.lastAccessedAt = now
        // The count is the entry file's to say (damaged, or written by hand): it stops at the most an Int holds.
        renewed.revalidations = min(renewed.revalidations, Int.max - 1) + 1
        guard let verified = try? readVerified(renewed, request: request, source: .revalidated) else {
            // The blob went bad while stale: fetch it whole.
            try? disk.remove(request.url)
            return try await fetchOnce(request, revalidating: nil, progress: progress, body: body)
        }
        if renewed.probe == nil { renewed.probe = verified.probe }
        try? disk.renew(renewed)
        return ImageResponse(request: request, entry: renewed, source: .revalidated, body: verified.body, elapsed: .zero, isCached: true)
    }

    private func makeTemporaryFile(for url: URL) throws -> TemporaryFile {
        do {
            if let disk = configuration.diskCache { return try disk.makeTemporaryFile() }
            return try TemporaryFile(in: FileManager.default.temporaryDirectory)
        } catch {
            throw Self.storeFailure(error, url: url)
        }
    }

    /// A failure to write into the cache: this machine's (disk full, permission…) when the system
    /// said so, else the cache's.
    private static func storeFailure(_ error: any Error, url: URL) -> ImagePipelineError {
        if let failure = error as? FileSystemError, failure.isLocalStorageFailure {
            return .storage(url, failure)
        }
        return .cache(String(describing: error))
    }

    /// The pipeline's words for what went wrong in a transfer.
    ///
    /// A body that breaks off after a successful head is a truncated transfer; a write into the
    /// download's file that fails is this machine's failure, not the network's.
    private func translate(_ error: any Error, url: URL, writer: BlobWriter) -> any Error {
        switch error {
        case is CancellationError, is ImagePipelineError, is ResumeRejected:
            return error
        case let failure as FileSystemError:
            return ImagePipelineError.storage(url, failure)
        case let failure as TransportError:
            if case .connectionLost = failure, let head = writer.head, (200..<300).contains(head.status) {
                return ImagePipelineError.truncated(url, received: writer.received, expected: head.uncompressedLength)
            }
            return ImagePipelineError.transport(url, failure)
        default:
            return ImagePipelineError.transport(url, .local(String(describing: error)))
        }
    }

    // MARK: Disk and local files

    /// The cached body, after checking its bytes still hash to what was stored.
    private func readVerified(_ entry: CacheEntry, request: ImageRequest, source: ImageResponse.Source) throws -> ImageResponse {
        guard let disk = configuration.diskCache else { throw ImagePipelineError.cache("no disk cache") }
        if entry.byteCount <= configuration.memoryItemLimit {
            return ImageResponse(
                request: request, entry: entry, source: source, body: .data(try disk.readBlob(of: entry)), elapsed: .zero, isCached: true)
        }
        // Large: a private link to the blob, so eviction by another process cannot pull it away.
        let file = try disk.openBlob(of: entry)
        return ImageResponse(
            request: request, entry: entry, source: source, body: .file(file.url, owner: file), elapsed: .zero, isCached: true)
    }

    /// The size from which a local file read for a thumbnail is mapped rather than copied: below
    /// it one `read` costs less than mapping and faulting the pages in.
    static let mappedThumbnailSource = 256 << 10

    private func readLocalFile(_ request: ImageRequest) throws -> ImageResponse {
        let url = request.url
        // A file larger than the cache keeps in memory is left where it is, as a large cache
        // blob is: the decoder maps it (DECISIONS.md, "Large files reach the decoder mapped").
        // `get` keeps nothing in memory: it copies the file from where it is. A file read only to
        // make a thumbnail (no digest asked for) is mapped once past `mappedThumbnailSource`: a
        // grid decodes many at once, and copies of whole photographs would be most of its memory
        // (DECISIONS.md, "Photographs read for thumbnails are mapped").
        let memoryLimit = configuration.memoryItemLimit
        let wholeLimit = request.needsDigest ? memoryLimit : min(memoryLimit, Self.mappedThumbnailSource)
        let (contents, modified, stamp) = try LocalFileReader(limit: configuration.maxDownloadBytes).read(
            url, wholeLimit: wholeLimit, hashing: request.needsDigest)
        let body: ImageResponse.Body
        let byteCount: Int64
        let sha256: String
        let found: ImageProbe?
        switch contents {
        case .data(let data):
            (body, byteCount, sha256) = (.data(data), Int64(data.count), request.needsDigest ? SHA256.hash(data: data).hexString : "")
            found = body.probe(through: .header)
        case .file(let count, let hash, let probe):
            (body, byteCount, sha256, found) = (.file(url, owner: nil), count, hash, probe)
        }
        guard let probe = found else { throw ImagePipelineError.notAnImage(url, contentType: nil) }
        let now = configuration.now()
        let entry = CacheEntry(
            url: url, finalURL: url, contentType: probe.format.mimeType, format: probe.format, byteCount: byteCount,
            sha256: sha256, etag: nil, lastModified: HTTPDate.string(from: modified), fetchedAt: now,
            lastAccessedAt: now, freshUntil: now, probe: probe)
        var response = ImageResponse(
            request: request, entry: entry, source: .file, body: body, elapsed: .zero, isCached: false, probe: probe)
        response.fileStamp = stamp
        return response
    }
}
