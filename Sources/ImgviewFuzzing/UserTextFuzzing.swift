import ImgviewFetching
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Names from outside: text typed or found in a catalog as a URL (encoded exactly once), and a
/// path's bytes, whatever they are, as a file URL (kept byte for byte).
enum UserTextFuzzing {
    private static let base = URL(fileURLWithPath: "/base/folder", isDirectory: true)

    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        if let url = URL(userText: text) {
            let written = url.absoluteString
            precondition(
                written.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 0x20 && $0.value != 0x7F },
                "a URL holds a character no URL may")
            precondition(URL(userText: written)?.absoluteString == written, "a URL was encoded a second time")
        }
        // Names never hold NUL: neither the command line nor a folder can give one.
        guard !bytes.contains(0) else { return }
        let file = URL(filePathBytes: bytes, relativeTo: base)
        let path = file.filePathBytes
        precondition(path.first == UInt8(ascii: "/"), "a file URL's path is not absolute")
        precondition(URL(filePathBytes: path, relativeTo: base).filePathBytes == path, "a path changed when read again")
        TerminalSafety.requireSafe(TerminalText.sanitized(file.displayPath), "a displayed path")
    }
}
