internal import Crypto
import ImgviewFetching
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

/// A fetcher that answers for images whose bytes the caller already holds — what `show -` and
/// `info -` read from standard input — and passes every other request to the fetcher it wraps.
///
/// Supplied bytes go through the same pipeline as any image (header, decode, render) and are
/// never stored in a cache.
public struct SuppliedImageFetcher: ImageFetching {
    private let supplied: [URL: Data]
    private let base: any ImageFetching

    public init(supplied: [URL: Data], wrapping base: any ImageFetching) {
        self.supplied = supplied
        self.base = base
    }

    public func fetch(_ request: ImageRequest, progress: @escaping TransferProgress, body: BodyTap?) async throws -> ImageResponse {
        guard let data = supplied[request.url] else { return try await base.fetch(request, progress: progress, body: body) }
        guard let probe = ImageProbe.read(data) else { throw ImagePipelineError.notAnImage(request.url, contentType: nil) }
        let now = Date()
        let entry = CacheEntry(
            url: request.url, finalURL: request.url, contentType: probe.format.mimeType, format: probe.format,
            byteCount: Int64(data.count), sha256: SHA256.hash(data: data).hexString, etag: nil, lastModified: nil, fetchedAt: now,
            lastAccessedAt: now, freshUntil: now, probe: probe)
        return ImageResponse(
            request: request, entry: entry, source: .standardInput, body: .data(data), elapsed: .zero, isCached: false, probe: probe)
    }

    public func discard(_ url: URL) {
        if supplied[url] == nil { base.discard(url) }
    }

    /// Reads standard input to its end; more than `limit` bytes is refused, before they are all held.
    public static func readStandardInput(limit: Int64) throws(ImagePipelineError) -> Data {
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count: Int
            do {
                count = try chunk.withUnsafeMutableBytes { try FileDescriptor.standardInput.read(into: $0) }
            } catch {
                throw .fileUnreadable(URL(fileURLWithPath: "/dev/stdin"), reason: String(cString: strerror(Errno.code(of: error))))
            }
            if count == 0 { return data }
            data.append(contentsOf: chunk[..<count])
            if data.count > limit { throw .tooLarge(.standardInput, limit: limit) }
        }
    }
}
