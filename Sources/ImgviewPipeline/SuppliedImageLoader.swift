import Crypto
import ImgviewFetching
import ImgviewImaging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// An image loader that answers for images whose bytes the caller already holds — what `show -`
/// and `info -` read from standard input — and passes every other request to the loader it wraps.
///
/// Supplied bytes go through the same pipeline as any image (header, decode, render) and are
/// never stored in a cache.
public struct SuppliedImageLoader: ImageLoading {
    /// The URL an image read from standard input goes by.
    public static let standardInput = URL.standardInput

    private let supplied: [URL: Data]
    private let base: any ImageLoading

    public init(supplied: [URL: Data], wrapping base: any ImageLoading) {
        self.supplied = supplied
        self.base = base
    }

    public func image(for request: ImageRequest, progress: ImageService.Progress?) async throws -> ImageResponse {
        try await image(for: request, progress: progress, body: nil)
    }

    public func image(
        for request: ImageRequest, progress: ImageService.Progress?, body: ImageService.BodyTap?
    ) async throws -> ImageResponse {
        guard let data = supplied[request.url] else { return try await base.image(for: request, progress: progress, body: body) }
        guard let format = ImageFormat.sniff(data) else { throw ImagePipelineError.notAnImage(request.url, contentType: nil) }
        let now = Date()
        let entry = CacheEntry(
            url: request.url, finalURL: request.url, contentType: format.mimeType, format: format, byteCount: Int64(data.count),
            sha256: SHA256.hash(data: data).hexString, etag: nil, lastModified: nil, fetchedAt: now, lastAccessedAt: now,
            freshUntil: now)
        return ImageResponse(request: request, entry: entry, source: .standardInput, body: .data(data), elapsed: .zero, isCached: false)
    }

    public func discardCachedImage(for url: URL) async {
        if supplied[url] == nil { await base.discardCachedImage(for: url) }
    }

    /// Reads standard input to its end; more than `limit` bytes is refused, before they are all held.
    public static func readStandardInput(limit: Int64) throws(ImagePipelineError) -> Data {
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count < 0 { throw .fileUnreadable(URL(fileURLWithPath: "/dev/stdin"), reason: String(cString: strerror(errno))) }
            if count == 0 { return data }
            data.append(contentsOf: chunk[..<count])
            if data.count > limit { throw .tooLarge(standardInput, limit: limit) }
        }
    }
}
