import Foundation

/// What the loopback server sends for one path: bytes with the headers a real server would add.
public struct ServedResource: Sendable {
    /// Where the body comes from: held in memory, or streamed from a file.
    public enum Body: Sendable {
        case data(Data)
        case file(URL, size: Int)
    }

    public var body: Body
    public var contentType: String
    /// A strong validator; the server answers `If-None-Match` with 304 when it matches.
    public var etag: String?
    /// The server answers `If-Modified-Since` with 304 when this is not later.
    public var lastModified: Date?
    /// Sent as is, e.g. `max-age=60`; nil sends no Cache-Control.
    public var cacheControl: String?

    public init(body: Body, contentType: String, etag: String? = nil, lastModified: Date? = nil, cacheControl: String? = nil) {
        self.body = body
        self.contentType = contentType
        self.etag = etag
        self.lastModified = lastModified
        self.cacheControl = cacheControl
    }

    /// A resource in memory whose ETag is derived from its bytes, so changed bytes change the ETag.
    public static func data(_ data: Data, contentType: String, lastModified: Date? = nil, cacheControl: String? = nil) -> ServedResource {
        ServedResource(
            body: .data(data), contentType: contentType, etag: ETag.make(for: data),
            lastModified: lastModified, cacheControl: cacheControl)
    }

    /// The body's length in bytes.
    public var size: Int {
        switch body {
        case .data(let data): data.count
        case .file(_, let size): size
        }
    }
}

/// Makes strong entity tags.
enum ETag {
    /// A quoted tag from the bytes' FNV-1a hash and length: stable across runs, cheap to compute.
    static func make(for data: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return "\"\(String(data.count, radix: 16))-\(String(hash, radix: 16))\""
    }

    /// A quoted tag from a file's size and modification time, as nginx makes them.
    static func make(size: Int, modified: Date) -> String {
        "\"\(String(Int(modified.timeIntervalSince1970), radix: 16))-\(String(size, radix: 16))\""
    }
}
