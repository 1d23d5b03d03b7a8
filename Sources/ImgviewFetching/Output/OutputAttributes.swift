import ImgviewSupport
import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a downloaded file carries besides its bytes: where it came from, as freedesktop.org's
/// extended attributes say it (and curl `--xattr`, wget and browsers write them), and with `-R`
/// the server's modification time.
///
/// Set on the open file after its last write and before it gets its name, so the name never
/// shows a file without them. A file system without extended attributes (FAT, some NFS, tmpfs
/// before Linux 6.6), or a value too long for it, is not an error: the bytes are what was asked for.
public struct OutputAttributes: Sendable, Equatable {
    /// `user.xdg.origin.url`: the URL the bytes came from, after redirects.
    public var originURL: String?
    /// `user.xdg.referrer.url`: the Referer sent for them.
    public var referrerURL: String?
    /// `user.mime_type`: the server's Content-Type.
    public var mimeType: String?
    /// The modification time (`-R`, from Last-Modified); nil leaves the time of writing.
    public var modified: Date?

    public init(originURL: String? = nil, referrerURL: String? = nil, mimeType: String? = nil, modified: Date? = nil) {
        self.originURL = originURL
        self.referrerURL = referrerURL
        self.mimeType = mimeType
        self.modified = modified
    }

    /// `url` as an origin attribute: without user name, password or fragment (as curl writes it),
    /// so a credential given in the URL never lands on the disk beside the file; nil for a URL
    /// that is not http(s).
    public static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            var components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        else { return nil }
        components.user = nil
        components.password = nil
        components.fragment = nil
        return components.string
    }

    /// Writes the attributes onto `file`; failures are ignored (see above).
    func apply(to file: FileDescriptor) {
        for (name, value) in [("user.xdg.origin.url", originURL), ("user.xdg.referrer.url", referrerURL), ("user.mime_type", mimeType)] {
            if let value { try? LinuxFileCalls.setExtendedAttribute(name, to: value, on: file) }
        }
        if let modified { try? LinuxFileCalls.setModificationTime(of: file, to: modified) }
    }
}
