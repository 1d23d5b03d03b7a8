import HTTPTypes
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
        checkHeader(text)
        // Names never hold NUL: neither the command line nor a folder can give one.
        guard !bytes.contains(0) else { return }
        let file = URL(filePathBytes: bytes, relativeTo: base)
        let path = file.filePathBytes
        precondition(path.first == UInt8(ascii: "/"), "a file URL's path is not absolute")
        precondition(URL(filePathBytes: path, relativeTo: base).filePathBytes == path, "a path changed when read again")
        TerminalSafety.requireSafe(TerminalText.sanitized(file.displayPath), "a displayed path")
    }

    /// A `-H` argument: refused with a safe one-line message, or a field of one line that is not
    /// one imgview manages and reaches every request.
    private static func checkHeader(_ text: String) {
        var headers = RequestHeaders()
        do {
            try headers.add(text)
        } catch {
            TerminalSafety.requireSafe(error.message, "a header's error")
            precondition(!error.message.contains("\n"), "a header's error is one line")
            return
        }
        for field in headers.fields {
            precondition(RequestHeaders.managed[field.name] == nil, "a managed header was taken")
            precondition(!field.value.unicodeScalars.contains { $0 == "\r" || $0 == "\n" || $0 == "\0" }, "a header value spans lines")
        }
        let request = headers.applied(to: .get(base, fields: [.userAgent: "imgview/0.1", .accept: "image/*"]))
        precondition(request.headerFields.count >= headers.fields.count, "a given header was lost")
    }
}
