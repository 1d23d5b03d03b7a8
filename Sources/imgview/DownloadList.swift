import ImgviewFetching
import ImgviewSupport
import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One thing `get` was asked for: an argument, or a line of `-i FILE`, resolved to an image or not.
struct DownloadItem: Sendable {
    /// As the user wrote it.
    let input: String
    /// The list and line it came from; nil for an argument.
    let line: (list: String, number: Int)?
    let reference: Result<ImageReference, any Error>

    /// How messages name it: `list.txt:3` for a line, the catalog name or nothing for an argument.
    var label: String? {
        if let line { return "\(line.list):\(line.number)" }
        return try? reference.get().image?.name
    }
}

/// The lines of `-i FILE` (`wget -i`): one URL, file or catalog name each.
enum DownloadList {
    /// The entries of `text`: each line trimmed; blank lines and those starting with `#` skipped.
    /// No comment after an entry: `#` there is a URL's fragment. Line numbers count from 1.
    static func entries(_ text: String) -> [(number: Int, text: String)] {
        var entries: [(number: Int, text: String)] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let entry = String(line).trimmingSpaces()
            guard !entry.isEmpty, !entry.hasPrefix("#") else { continue }
            entries.append((index + 1, entry))
        }
        return entries
    }

    /// The text of the list at `path`, or of standard input for `-`.
    static func read(_ path: String) throws -> String {
        guard path == "-" else {
            do {
                return String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
            } catch {
                throw InputListError.unreadable(path)
            }
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = (try? buffer.withUnsafeMutableBytes { try FileDescriptor.standardInput.read(into: $0) }) ?? 0
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Why the list of `-i` could not be read.
enum InputListError: UserFacingError {
    case unreadable(String)

    var message: String {
        switch self {
        case .unreadable(let path): "\(TerminalText.sanitized(path)): cannot read the list of images"
        }
    }

    var exitStatus: ExitStatus { .notFound }
}
