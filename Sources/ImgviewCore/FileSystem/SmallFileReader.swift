#if canImport(Glibc)
    import Glibc
#endif

/// Reads many small files of one folder through one reused buffer: no `URL`, `Data` or
/// allocation per file, and names opened relative to the folder (`openat`), so the kernel
/// does not walk the whole path each time.
///
/// `cache ls` reads ten thousand entry files; `Data(contentsOf:)` with a `URL` built by
/// `appendingPathComponent` (which stats the path to see if it is a folder) cost more than
/// decoding them. Not thread-safe: one reader per thread.
final class SmallFileReader {
    /// Files larger than this are not read (entry metadata is well under a kilobyte).
    static let limit = 1 << 20
    private let folder: Int32
    private var buffer = [UInt8](repeating: 0, count: 16 * 1024)

    /// A reader of files in `folder`; nil when the folder cannot be opened.
    init?(folder path: String) {
        folder = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { return nil }
    }

    deinit {
        close(folder)
    }

    /// `body` applied to the contents of the file `name`; nil when it cannot be read or is too large.
    func read<T>(_ name: String, _ body: (UnsafeBufferPointer<UInt8>) -> T?) -> T? {
        let descriptor = openat(folder, name, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var count = 0
        while true {
            if count == buffer.count {
                guard buffer.count < Self.limit else { return nil }
                buffer += [UInt8](repeating: 0, count: buffer.count)
            }
            let got = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + count, $0.count - count) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { return nil }
            if got == 0 { break }
            count += got
        }
        return buffer.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[0..<count])) }
    }
}
