import Crypto
import Foundation

/// What `imgview info` reports about one image: its header, frames, size on disk, digest and origin.
public struct ImageInfo: Sendable, Equatable, Encodable {
    public var format: String
    /// Whether imgview can decode the format (it recognises, downloads and caches more than it decodes).
    public var previewable: Bool
    /// The upright size; nil when the header of a format imgview cannot decode does not say it.
    public var width: Int?
    public var height: Int?
    public var storedWidth: Int?
    public var storedHeight: Int?
    public var orientation: Int?
    /// Frames in the file: 1 for a still.
    public var frames: Int
    /// One pass through an animation's frames, in milliseconds; nil for a still.
    public var durationMilliseconds: Int?
    /// How many times an animation plays, 0 meaning forever; nil for a still.
    public var loopCount: Int?
    public var bytes: Int
    public var sha256: String
    /// Where the bytes were read from: a file path or a URL, sanitised for the terminal.
    public var source: String
    /// How they were obtained: "file", "network", "memory cache", "disk cache".
    public var origin: String
    /// The cache's view of the image, or "not cached" when no cache took part.
    public var cacheState: String

    /// `header` is nil for a format imgview recognises but whose header it cannot read.
    public init(format: ImageFormat, header: ImageHeader?, bytes: Data, source: String, origin: String, cacheState: String) {
        self.format = format.displayName
        previewable = format.isPreviewable
        if let header {
            (width, height) = header.uprightSize
            storedWidth = header.storedWidth
            storedHeight = header.storedHeight
            orientation = header.orientation.rawValue
        }
        let animation = header?.animation
        frames = animation?.frameCount ?? 1
        durationMilliseconds = animation.map { Int($0.duration / .milliseconds(1)) }
        loopCount = animation?.loopCount
        self.bytes = bytes.count
        sha256 = Self.sha256Hex(bytes)
        self.source = TerminalText.sanitized(source)
        self.origin = origin
        self.cacheState = cacheState
    }

    /// "24 frames, 2.4 s, plays forever", or "1 (still)".
    public var framesText: String {
        guard let durationMilliseconds, let loopCount else { return "1 (still)" }
        let plays =
            switch loopCount {
            case 0: "plays forever"
            case 1: "plays once"
            default: "plays \(loopCount) times"
            }
        return "\(frames), \(Self.seconds(milliseconds: durationMilliseconds)) s a pass, \(plays)"
    }

    /// Seconds with at most two decimals and no trailing zeros: `2.4`, `0.05`, `12`.
    private static func seconds(milliseconds: Int) -> String {
        let hundredths = (milliseconds + 5) / 10
        var text = "\(hundredths / 100)"
        let fraction = hundredths % 100
        if fraction != 0 { text += "." + (fraction % 10 == 0 ? "\(fraction / 10)" : String(format: "%02d", fraction)) }
        return text
    }

    /// The lowercase hex SHA-256 of `bytes`.
    public static func sha256Hex<Bytes: DataProtocol>(_ bytes: Bytes) -> String {
        SHA256.hash(data: bytes).map { byte in
            let digits = String(byte, radix: 16)
            return byte < 16 ? "0" + digits : digits
        }.joined()
    }

    /// Every key is written, `null` when there is no value, as the other JSON outputs do.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(format, forKey: .format)
        try container.encode(previewable, forKey: .previewable)
        try container.encode(width, forKey: .width)
        try container.encode(height, forKey: .height)
        try container.encode(storedWidth, forKey: .storedWidth)
        try container.encode(storedHeight, forKey: .storedHeight)
        try container.encode(orientation, forKey: .orientation)
        try container.encode(frames, forKey: .frames)
        try container.encode(durationMilliseconds, forKey: .durationMilliseconds)
        try container.encode(loopCount, forKey: .loopCount)
        try container.encode(bytes, forKey: .bytes)
        try container.encode(sha256, forKey: .sha256)
        try container.encode(source, forKey: .source)
        try container.encode(origin, forKey: .origin)
        try container.encode(cacheState, forKey: .cacheState)
    }

    enum CodingKeys: String, CodingKey {
        case format, previewable, width, height, storedWidth = "stored_width", storedHeight = "stored_height", orientation, frames,
            durationMilliseconds = "duration_ms", loopCount = "loop_count", bytes, sha256, source, origin, cacheState = "cache_state"
    }
}
