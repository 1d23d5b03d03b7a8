import ImgviewFetching
import ImgviewImaging
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What the pipeline's stages made, each kept in a memory cache with a bound of its own.
///
/// Thread-safe, so the browser can look up a finished preview synchronously. Everything made from
/// an image's bytes is keyed by their hash, and is used only while the bytes may be (`usable`).
final class PipelineMemory: Sendable {
    /// What each URL last delivered: its entry (hash, freshness), and its bytes when they are small.
    let images: MemoryCache<URL, KnownImage>
    let headers: MemoryCache<ContentKey, ImageHeader>
    let decoded: MemoryCache<ContentKey, DecodedEntry>
    let previews: MemoryCache<RenderKey, CachedPreview>
    /// Local files' lasting thumbnails found without reading the files (a grid's cells).
    let lasting: MemoryCache<LastingKey, LastingThumbnail>
    private let isOffline: Bool
    private let now: @Sendable () -> Date

    init(configuration: ImagePipeline.Configuration) {
        images = MemoryCache(costLimit: configuration.bytesCostLimit, countLimit: 4096)
        headers = MemoryCache(costLimit: Int.max, countLimit: 4096)
        decoded = MemoryCache(costLimit: configuration.decodedCostLimit, countLimit: 64)
        previews = MemoryCache(costLimit: configuration.previewCostLimit, countLimit: 256)
        // A few screens of cells (256×160 RGBA is 160 KB): scrolling back re-renders, +/- too.
        lasting = MemoryCache(costLimit: min(configuration.decodedCostLimit, 32 << 20), countLimit: 1024)
        isOffline = configuration.isOffline
        now = configuration.now
    }

    /// What is known about `url`'s bytes, if they, and what was made from them, may be used
    /// without asking anyone: fresh, or offline, or a local file that has not changed since.
    /// Bytes known without their hash (a local file read for a thumbnail) serve only a request
    /// that does not need it (`needsDigest` false), and only while the file is as it was.
    func usable(_ url: URL, needsDigest: Bool = true) -> KnownImage? {
        guard let known = images.value(for: url) else { return nil }
        if known.entry.sha256.isEmpty {
            guard !needsDigest, let stamp = known.fileStamp, FileStamp(of: url) == stamp else { return nil }
            return known
        }
        if let stamp = known.fileStamp, !isOffline { return FileStamp(of: url) == stamp ? known : nil }
        return known.entry.isUsableWithoutAsking(offline: isOffline, at: now()) ? known : nil
    }

    /// Remembers what `response` delivered for its URL.
    func remember(_ response: ImageResponse, fileStamp: FileStamp?) {
        // Bytes read without their hash do not push out what is known with it of the same file as it is.
        if response.entry.sha256.isEmpty, let kept = images.value(for: response.request.url), !kept.entry.sha256.isEmpty,
            kept.fileStamp != nil, kept.fileStamp == fileStamp
        {
            return
        }
        var data: Data?
        if case .data(let bytes) = response.body { data = bytes }
        let known = KnownImage(entry: response.entry, isCached: response.isCached, fileStamp: fileStamp, data: data)
        images.set(known, for: response.request.url, cost: max(1, data?.count ?? 0))
    }

    /// Keeps `entry` as the decoded pixels of `content`, unless larger ones of the same page are kept already.
    func keepDecoded(_ entry: DecodedEntry, for content: ContentKey) {
        if let kept = decoded.value(for: content), kept.image.page == entry.image.page, kept.pixelCount >= entry.pixelCount { return }
        decoded.set(entry, for: content, cost: entry.cost)
    }
}

/// What the pipeline last learned about a URL's bytes.
struct KnownImage: Sendable {
    let entry: CacheEntry
    let isCached: Bool
    /// For a local file: who it was when it was read; what was made of it is used only while it still is.
    let fileStamp: FileStamp?
    /// The bytes, when they came in memory (small enough); nil when they are in a file.
    let data: Data?

    /// What is made from these bytes is kept by.
    func content(_ url: URL) -> ContentKey {
        ContentKey(url: url, entry: entry, fileStamp: fileStamp)
    }
}

/// Decoded pixels and what decoding them cost.
struct DecodedEntry: Sendable {
    let image: DecodedImage
    let decodeTime: Duration
    /// The pixels are a local file's lasting thumbnail, not a decode of its bytes.
    var isStoredThumbnail = false

    var pixelCount: Int { image.pixels.width * image.pixels.height }
    var cost: Int { image.pixelByteCount }
}

/// A rendered preview with what the facts pane shows about how it was made.
struct CachedPreview: Sendable {
    let preview: RenderedPreview
    let warning: String?
    let decodeTime: Duration
}

/// Which bytes: an image's URL and the hash of what it delivered; or, for a local file's lasting
/// thumbnail taken without reading the file, the file's state and the thumbnail's size.
struct ContentKey: Hashable, Sendable {
    let url: URL
    let sha256: String
    var lasting: LastingState? = nil
    /// A local file's stamp when its bytes were read without their hash (`sha256` empty).
    var file: FileStamp? = nil

    /// The key of the bytes `entry` describes: by their hash, or, read without one, by the file's stamp.
    init(url: URL, entry: CacheEntry, fileStamp: FileStamp?) {
        self.init(url: url, sha256: entry.sha256, file: entry.sha256.isEmpty ? fileStamp : nil)
    }

    init(url: URL, sha256: String, lasting: LastingState? = nil, file: FileStamp? = nil) {
        self.url = url
        self.sha256 = sha256
        self.lasting = lasting
        self.file = file
    }
}

/// Which decode: the bytes, the upright pixel size the decode must cover, and whether an
/// animation's every frame or only its first.
struct DecodeKey: Hashable, Sendable {
    let content: ContentKey
    let width: Int
    let height: Int
    let page: Int
    let animates: Bool
}

/// Which preview: the bytes, and the box, mode and colours it was rendered for.
struct RenderKey: Hashable, Sendable {
    let content: ContentKey
    let options: RenderOptions
}
