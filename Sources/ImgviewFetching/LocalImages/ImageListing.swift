import ImgviewImaging
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// The images that browse sources stand for, one at a time, in order: what the browser's tabs are.
///
/// Folders are read when the listing reaches them, each in natural name order, and a file counts
/// if its first bytes are an image's signature, whatever its name says. Names starting with a dot
/// are skipped in folders, as `ls` does; links to files are followed, links to folders are not
/// (so a recursive listing cannot loop). Unreadable files and subfolders are passed over.
/// Reading is synchronous file I/O: run it off any actor that must stay responsive.
public struct ImageListing: IteratorProtocol, Sendable {
    private var sources: ArraySlice<BrowseSource>
    private let recursive: Bool
    /// The folders being walked, innermost last.
    private var folders: [FolderWalk] = []
    /// How many files were examined, images or not.
    public private(set) var examined = 0

    public init(sources: [BrowseSource], recursive: Bool) {
        self.sources = sources[...]
        self.recursive = recursive
    }

    public mutating func next() -> AppImage? {
        while true {
            if var walk = folders.popLast() {
                guard let name = walk.names.popLast() else { continue }
                folders.append(walk)
                if let image = examine(walk.folder.appendingPathBytes(name.bytes), tabName: walk.prefix + name.text, inFolder: true) {
                    return image
                }
                continue
            }
            guard let source = sources.popFirst() else { return nil }
            switch source {
            case .url(let url):
                return AppImage(name: Self.tabName(for: url), url: url)
            case .catalogImage(let image):
                return image
            case .file(let url):
                if let image = examine(url, tabName: url.displayName, inFolder: false) { return image }
            case .folder(let url):
                enter(url, prefix: "")
            }
        }
    }

    /// The tab name of a URL: its file name, else its host.
    public static func tabName(for url: URL) -> String {
        let last = url.lastPathComponent
        return last.isEmpty || last == "/" ? (url.host ?? url.absoluteString) : last
    }

    // MARK: Reading

    private mutating func enter(_ folder: URL, prefix: String) {
        guard let names = Self.names(in: folder) else { return }
        // Reversed, so the next name is the last element and taking it costs nothing.
        folders.append(FolderWalk(folder: folder, prefix: prefix, names: names.sorted { NaturalOrder.compare($0.text, $1.text) > 0 }))
    }

    private mutating func examine(_ url: URL, tabName: String, inFolder: Bool) -> AppImage? {
        guard let status = url.fileStatus() else { return nil }
        switch status.st_mode & S_IFMT {
        case S_IFREG:
            examined += 1
            guard Self.startsWithImageSignature(url) else { return nil }
            return AppImage(name: tabName, url: url)
        case S_IFDIR where inFolder && recursive:
            // A link to a folder is not followed: only real subfolders are walked.
            guard let linkStatus = url.fileStatus(followingLinks: false), linkStatus.st_mode & S_IFMT == S_IFDIR else { return nil }
            enter(url, prefix: tabName + "/")
            return nil
        default:
            return nil
        }
    }

    /// The visible names in a folder (as bytes, which need not be UTF-8, and as text with U+FFFD
    /// where they are not), or nil when it cannot be read.
    static func names(in folder: URL) -> [FolderWalk.Name]? {
        guard let stream = folder.withFilePath({ opendir($0) }) else { return nil }
        defer { closedir(stream) }
        var names: [FolderWalk.Name] = []
        while let entry = readdir(stream) {
            let bytes = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            if bytes.first == UInt8(ascii: ".") { continue }
            names.append(FolderWalk.Name(bytes: bytes, text: String(decoding: bytes, as: UTF8.self)))
        }
        return names
    }

    /// Whether the file at `url` begins with a signature `ImageFormat` recognises.
    static func startsWithImageSignature(_ url: URL) -> Bool {
        // O_NONBLOCK: a FIFO that changed places with the file must not hang the listing.
        let descriptor = url.withFilePath { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) }
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var head = [UInt8](repeating: 0, count: ImageFormat.sniffLength)
        let count = head.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, ImageFormat.sniffLength) }
        guard count > 0 else { return false }
        return ImageFormat.sniff(head[..<count]) != nil
    }
}

/// A folder part way through being listed.
struct FolderWalk: Sendable {
    /// A name in a folder: its bytes for the system, its text for people.
    struct Name: Sendable {
        let bytes: [UInt8]
        let text: String
    }

    let folder: URL
    /// What tab names in it start with: the path from the folder named on the command line.
    let prefix: String
    /// The names not yet examined, in reverse natural order.
    var names: [Name]
}
