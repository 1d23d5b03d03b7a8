import ImgviewFetching
import ImgviewImaging
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What is known about one image: what it is (from its header), where its bytes came from and
/// what the cache holds. The browser's metadata pane and `imgview info` both show this.
public struct ImageFacts: Sendable, Equatable {
    public var url: URL
    public var format: ImageFormat
    /// Upright size in pixels, orientation applied.
    public var width: Int
    public var height: Int
    /// The size as stored, before orientation.
    public var storedWidth: Int
    public var storedHeight: Int
    public var orientation: ImageOrientation
    /// Frames, duration and loops of an animation, from its header; nil for a still.
    public var animation: AnimationSummary?
    /// Pages of a file shown one page at a time (TIFF, a HEIF collection); 1 for the rest.
    public var pageCount: Int
    /// A vector image (SVG): `width` and `height` are then only its shape at the most it is drawn
    /// at, and `naturalSize` is its own size, when it declares one.
    public var isScalable: Bool
    public var naturalSize: ImageDimensions?
    /// The colour space the file declares before its pixels (ICC profile or code points); nil for
    /// none, which means sRGB. Pixels are converted from it to sRGB when decoded.
    public var colorProfile: EmbeddedColorProfile?
    /// What is wrong with the file, when its structure says it is cut short (`info`); nil when
    /// nothing was found.
    public var damage: String?
    /// The camera fields of a photo's EXIF (JPEG, PNG, TIFF), when it has any.
    public var camera: ExifCamera?
    public var byteCount: Int64
    public var sha256: String
    public var source: ImageResponse.Source
    /// From the request to the last byte.
    public var fetchTime: Duration
    /// How long the pixels took to decode; nil when they were not decoded (`info`).
    public var decodeTime: Duration?
    public var cacheState: CacheStatus
    /// The server's validators, for revalidation.
    public var etag: String?
    public var lastModified: String?

    public init(
        url: URL, header: ImageHeader, entry: CacheEntry, source: ImageResponse.Source, fetchTime: Duration,
        decodeTime: Duration?, cacheState: CacheStatus
    ) {
        self.url = url
        format = header.format
        (width, height) = header.uprightSize
        storedWidth = header.storedWidth
        storedHeight = header.storedHeight
        orientation = header.orientation
        animation = header.animation
        pageCount = header.pageCount
        isScalable = header.isScalable
        naturalSize = header.naturalSize
        colorProfile = header.colorProfile
        byteCount = entry.byteCount
        sha256 = entry.sha256
        self.source = source
        self.fetchTime = fetchTime
        self.decodeTime = decodeTime
        self.cacheState = cacheState
        etag = entry.etag
        lastModified = entry.lastModified
    }

    /// "640×480", or for a vector image "24×24 (scalable)" or "scalable (no size of its own)".
    public var sizeText: String {
        guard isScalable else { return "\(width)×\(height)" }
        return naturalSize.map { "\($0.width)×\($0.height) (scalable)" } ?? "scalable (no size of its own)"
    }

    /// "Display P3", "Adobe RGB (1998)", "sRGB", an unknown profile's description, or "none".
    public var colorProfileText: String {
        colorProfile?.name ?? "none"
    }

    /// "24, 2.4 s a pass, plays forever", or "1 (still)", as `info` prints the frames.
    public var framesText: String {
        guard let animation else { return "1 (still)" }
        let plays =
            switch animation.loopCount {
            case 0: "plays forever"
            case 1: "plays once"
            default: "plays \(animation.loopCount) times"
            }
        return "\(animation.frameCount), \(Self.seconds(animation.duration)) s a pass, \(plays)"
    }

    /// "24 in 2.4 s, forever": the frames in the browser's narrow metadata pane.
    public var framesShortText: String {
        guard let animation else { return "1" }
        let plays =
            switch animation.loopCount {
            case 0: "forever"
            case 1: "once"
            default: "\(animation.loopCount)×"
            }
        return "\(animation.frameCount) in \(Self.seconds(animation.duration)) s, \(plays)"
    }

    /// Seconds with at most two decimals and no trailing zeros: `2.4`, `0.05`, `12`.
    private static func seconds(_ duration: Duration) -> String {
        // A cache entry's duration may be any Int of milliseconds: rounded without adding to it.
        let milliseconds = duration.wholeMilliseconds
        let hundredths = milliseconds / 10 + (milliseconds % 10 >= 5 ? 1 : 0)
        var text = "\(hundredths / 100)"
        let fraction = hundredths % 100
        if fraction != 0 { text += "." + (fraction % 10 == 0 ? "\(fraction / 10)" : String(printf: "%02d", fraction)) }
        return text
    }

    /// Where the bytes are, as a user named them: a path for a local file, else the URL.
    public var location: String { url.location }
}

/// What the disk cache holds for an image, with the times the metadata pane shows (`CacheState` is the plain kind).
public enum CacheStatus: Sendable, Equatable {
    case notCached
    case fresh(until: Date)
    case stale(since: Date)

    public init(isCached: Bool, entry: CacheEntry, now: Date) {
        if !isCached {
            self = .notCached
        } else if entry.isFresh(at: now) {
            self = .fresh(until: entry.freshUntil)
        } else {
            self = .stale(since: entry.freshUntil)
        }
    }

    /// `cached, fresh until 2026-11-23T10:00:00Z`, as `info` prints it.
    public var description: String {
        switch self {
        case .notCached: "not cached"
        case .fresh(let until): "cached, fresh until \(ISOTimestamp.string(from: until))"
        case .stale(let since): "cached, stale since \(ISOTimestamp.string(from: since))"
        }
    }
}
