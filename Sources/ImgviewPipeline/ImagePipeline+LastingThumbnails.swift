import ImgviewFetching
import ImgviewImaging
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The lookup stage of a thumbnail of a local file, in front of the fetch: a lasting thumbnail
/// valid for the file as it is (found from the file's status, not its bytes) whose keys say what
/// the image is stands in for the fetch, the header and the decode, so a grid or a contact sheet
/// whose thumbnails are made never opens the originals. Anything else (no thumbnail, a stale one,
/// one without the image's format and size) goes the whole road, which reads the file.
extension ImagePipeline {
    /// Which lookup `request` may start with: a thumbnail of a local file, from the caches, of the
    /// first page, when there is a store.
    func lastingKey(for request: PreviewRequest) -> LastingKey? {
        guard let size = request.thumbnail, request.cachePolicy == .useCache, request.options.page == 0, request.url.isFileURL,
            configuration.thumbnails != nil
        else { return nil }
        return LastingKey(url: request.url, size: size)
    }

    /// The preview of `request` in memory, made earlier from the lasting thumbnail of the file as it is now.
    func cachedLastingPreview(for request: PreviewRequest) -> PreviewResponse? {
        guard let key = lastingKey(for: request), let found = knownLasting(key),
            let cached = memory.previews.value(for: RenderKey(content: found.content, options: request.options))
        else { return nil }
        return PreviewResponse(facts: facts(of: found, decodeTime: cached.decodeTime), preview: cached.preview, warning: cached.warning)
    }

    /// The preview of `request` made from the file's lasting thumbnail; nil when there is none that
    /// stands in for the file (the caller then fetches it).
    func lastingPreview(for request: PreviewRequest, waiter: WorkWaiter) async throws -> PreviewResponse? {
        guard let key = lastingKey(for: request), let store = configuration.thumbnails else { return nil }
        let found: LastingThumbnail
        if let known = knownLasting(key) {
            found = known
        } else {
            let memory = memory
            let looked = try await run(lookups, key, waiter: waiter) { cancellation -> LastingThumbnail? in
                if cancellation.isCancelled { throw CancellationError() }
                let started = ContinuousClock.now
                // The file's identity before its thumbnail is checked against it: a change in between shows later.
                guard let stamp = FileStamp(of: key.url), let stored = store.storedThumbnail(ofFile: key.url.path, size: key.size),
                    let header = stored.header
                else { return nil }
                var decoded = DecodedEntry(
                    image: DecodedImage(header: header, pixels: stored.pixels), decodeTime: started.duration(to: .now))
                decoded.isStoredThumbnail = true
                return LastingThumbnail(
                    url: key.url, stamp: stamp, size: key.size, byteCount: Int64(stored.fileSize ?? 0), modified: stored.modified,
                    decoded: decoded)
            } stored: { found in
                if let found { memory.lasting.set(found, for: key, cost: found.decoded.cost) }
            }
            guard let looked else { return nil }
            found = looked
        }
        let rendered = try await render(RenderKey(content: found.content, options: request.options), from: found.decoded, waiter: waiter)
        return PreviewResponse(
            facts: facts(of: found, decodeTime: rendered.decodeTime), preview: rendered.preview, warning: rendered.warning)
    }

    /// The lasting thumbnail of `key` in memory, while the file is as it was when it was found.
    private func knownLasting(_ key: LastingKey) -> LastingThumbnail? {
        guard let known = memory.lasting.value(for: key), known.stamp == FileStamp(of: key.url) else { return nil }
        return known
    }

    /// What the thumbnail's keys and the file's status tell of the image; its bytes were not read,
    /// so their hash is not known (empty).
    private func facts(of found: LastingThumbnail, decodeTime: Duration) -> ImageFacts {
        let now = configuration.now()
        let header = found.decoded.image.header
        let modified = found.modified.map { HTTPDate.string(from: Date(timeIntervalSince1970: TimeInterval($0))) }
        let entry = CacheEntry(
            url: found.url, finalURL: found.url, contentType: header.format.mimeType, format: header.format, byteCount: found.byteCount,
            sha256: "", etag: nil, lastModified: modified, fetchedAt: now, lastAccessedAt: now, freshUntil: now)
        return ImageFacts(
            url: found.url, header: header, entry: entry, source: .file, fetchTime: .zero, decodeTime: decodeTime,
            cacheState: CacheStatus(isCached: false, entry: entry, now: now))
    }
}

/// Which lasting thumbnail: a local file's, of at least a size.
struct LastingKey: Hashable, Sendable {
    let url: URL
    let size: ThumbnailSize
}

/// A local file's lasting thumbnail, found without reading the file, and the file's state it is valid for.
struct LastingThumbnail: Sendable {
    let url: URL
    let stamp: FileStamp
    let size: ThumbnailSize
    let byteCount: Int64
    /// The file's modification time in seconds.
    let modified: Int?
    /// The thumbnail's pixels with the image's header as its keys tell it.
    let decoded: DecodedEntry

    /// What its renders are kept by: no hash of bytes never read, but the file's state and the size.
    var content: ContentKey { ContentKey(url: url, sha256: "", lasting: LastingState(stamp: stamp, size: size)) }
}

/// The file state and thumbnail size a preview made from a lasting thumbnail belongs to.
struct LastingState: Hashable, Sendable {
    let stamp: FileStamp
    let size: ThumbnailSize
}
