import Crypto
import Foundation

/// What `imgview info` reports about one image: its header, size on disk, digest and origin.
public struct ImageInfo: Sendable, Equatable, Encodable {
    public var format: String
    public var width: Int
    public var height: Int
    public var storedWidth: Int
    public var storedHeight: Int
    public var orientation: Int
    public var bytes: Int
    public var sha256: String
    /// Where the bytes were read from: a file path or a URL, sanitised for the terminal.
    public var source: String
    /// How they were obtained: "file", "network", "memory cache", "disk cache".
    public var origin: String
    /// The cache's view of the image, or "not cached" when no cache took part.
    public var cacheState: String

    public init(header: ImageHeader, bytes: Data, source: String, origin: String, cacheState: String) {
        format = header.format.displayName
        (width, height) = header.uprightSize
        storedWidth = header.storedWidth
        storedHeight = header.storedHeight
        orientation = header.orientation.rawValue
        self.bytes = bytes.count
        sha256 = Self.sha256Hex(bytes)
        self.source = TerminalText.sanitized(source)
        self.origin = origin
        self.cacheState = cacheState
    }

    /// The lowercase hex SHA-256 of `bytes`.
    public static func sha256Hex<Bytes: DataProtocol>(_ bytes: Bytes) -> String {
        SHA256.hash(data: bytes).map { byte in
            let digits = String(byte, radix: 16)
            return byte < 16 ? "0" + digits : digits
        }.joined()
    }

    enum CodingKeys: String, CodingKey {
        case format, width, height, storedWidth = "stored_width", storedHeight = "stored_height", orientation, bytes, sha256,
            source, origin, cacheState = "cache_state"
    }
}
