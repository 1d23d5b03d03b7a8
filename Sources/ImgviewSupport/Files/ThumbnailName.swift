internal import Crypto

/// How the freedesktop.org Thumbnail Managing Standard names a local file's thumbnail: the MD5
/// of the file's canonical URI, as GLib writes it (`g_filename_to_uri`), in lower-case hex.
///
/// The URI keeps `A–Z a–z 0–9` and `! $ & ' ( ) * + , - . / : = @ _ ~` and encodes every other
/// byte as `%XX` in upper case; the path is absolute with `.`, `..` and `//` removed by its
/// text, links kept as named (a file manager keys by the path the user went through).
public enum ThumbnailName {
    /// `file://` and the canonical path of `path`, escaped; a relative path is taken from `directory`.
    public static func uri(ofPath path: String, in directory: String = "/") -> String {
        "file://" + escaped(canonicalPath(path, in: directory))
    }

    /// `<md5 of uri>.png`.
    public static func fileName(forURI uri: String) -> String {
        Insecure.MD5.hash(data: Array(uri.utf8)).hexString + ".png"
    }

    /// `path` made absolute and normalised by its text: no `.`, `..` or empty segments.
    public static func canonicalPath(_ path: String, in directory: String = "/") -> String {
        let full = path.hasPrefix("/") ? path : directory + "/" + path
        var segments: [Substring] = []
        for segment in full.split(separator: "/", omittingEmptySubsequences: true) {
            switch segment {
            case ".": continue
            case "..": if !segments.isEmpty { segments.removeLast() }
            default: segments.append(segment)
            }
        }
        // Joined by hand, each segment as a `String`: joining or appending substrings goes through
        // the standard library's unspecialized generic code, whose types the runtime looks up by
        // name, scanning every conformance on a command's first call.
        var joined = ""
        for segment in segments {
            joined += "/"
            joined += String(segment)
        }
        return joined.isEmpty ? "/" : joined
    }

    /// The bytes of `path` as a URI path: what GLib leaves alone stays, the rest is `%XX`.
    public static func escaped(_ path: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(path.utf8.count)
        for byte in path.utf8 {
            if isKept(byte) {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func isKept(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!$&'()*+,-./:=@_~".utf8).contains(byte)
        }
    }
}
