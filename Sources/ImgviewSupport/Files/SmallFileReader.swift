import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// Reads many small files of one folder through one reused buffer: no `URL`, `Data` or
/// allocation per file, and names opened relative to the folder (`openat`), so the kernel
/// does not walk the whole path each time.
///
/// `cache ls` reads ten thousand entry files; `Data(contentsOf:)` with a `URL` built by
/// `appendingPathComponent` (which stats the path to see if it is a folder) cost more than
/// decoding them. Only regular files are read (`Directory.openFile`): a link or a FIFO under a
/// file's name reads as nothing, at once. Not thread-safe: one reader per thread.
package final class SmallFileReader {
    /// Files larger than this are not read (entry metadata is well under a kilobyte).
    static let limit = 1 << 20
    private let folder: Directory
    private var buffer = [UInt8](repeating: 0, count: 16 * 1024)

    package init(folder: Directory) {
        self.folder = folder
    }

    /// `body` applied to the contents of the file `name` and its status; nil when it cannot be read or is too large.
    package func read<T>(_ name: String, _ body: (UnsafeBufferPointer<UInt8>, Stat) -> T?) -> T? {
        guard let file = try? folder.openFile(name) else { return nil }
        defer { try? file.close() }
        guard let status = try? Stat(file), status.size <= Self.limit else { return nil }
        var count = 0
        while true {
            if count == buffer.count {
                guard buffer.count < Self.limit else { return nil }
                buffer += [UInt8](repeating: 0, count: buffer.count)
            }
            guard
                let got = try? buffer.withUnsafeMutableBytes({ try file.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[count...])) })
            else { return nil }
            if got == 0 { break }
            count += got
        }
        return buffer.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[0..<count]), status) }
    }
}
