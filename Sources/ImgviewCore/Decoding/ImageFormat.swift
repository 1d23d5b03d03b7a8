import Foundation

/// An image file format, told from the file's first bytes, never from its name or content type.
public enum ImageFormat: String, Sendable, CaseIterable, Codable {
    case jpeg
    case png
    case gif
    case webp
    case bmp

    /// The format whose signature `bytes` start with, or nil when they are not a known image.
    public static func sniff<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> ImageFormat? {
        let head = Array(bytes.prefix(12))
        func starts(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + signature.count && Array(head[offset..<offset + signature.count]) == signature
        }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return .webp }
        if starts(Array("BM".utf8)) && head.count >= 6 { return .bmp }
        return nil
    }

    /// The MIME type a server should send for the format.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .bmp: "image/bmp"
        }
    }

    /// The name users know the format by.
    /// The usual file name extension, without the dot.
    public var fileExtension: String {
        self == .jpeg ? "jpg" : rawValue
    }

    public var displayName: String {
        switch self {
        case .jpeg: "JPEG"
        case .png: "PNG"
        case .gif: "GIF"
        case .webp: "WebP"
        case .bmp: "BMP"
        }
    }
}
