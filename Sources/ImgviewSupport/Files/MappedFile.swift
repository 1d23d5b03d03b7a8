import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// A file's bytes mapped read-only, for a decoder that reads them as if they were in memory
/// while they stay in the page cache: a file too large to read whole (DECISIONS.md, "Large
/// files reach the decoder mapped").
///
/// The pages a reader touches count in the process's resident memory until they are let go:
/// `releaseResidentPages()` drops them all from the mapping (they are read again from the page
/// cache, or the disk, if they are touched again), so a decoder that calls it between rows
/// holds only what it read since. The mapping lives as long as the object or any `data` made
/// from it.
///
/// A file cut short while it is mapped does not end the process: the pages it lost read as
/// zeros (`MappedRegions`) and `isIntact` turns false, so whoever decoded from the mapping
/// reports the file as changed instead of using what it read.
public final class MappedFile: @unchecked Sendable {
    public let url: URL
    public let count: Int
    /// Who the mapped file was and its state when it was mapped.
    public let stamp: FileStamp
    // Read-only and private: nothing writes through it, so dropping pages never loses anything.
    private let base: UnsafeMutableRawPointer?
    private let watch: MappedRegions.Slot?

    /// Maps the regular file at `url`; an empty file maps to no pages.
    public init(_ url: URL) throws(Errno) {
        let descriptor = url.withFilePath { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        guard descriptor >= 0 else { throw Errno(rawValue: errno) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw Errno(rawValue: errno) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw .invalidArgument }
        self.url = url
        count = Int(status.st_size)
        stamp = FileStamp(status: status)
        guard count > 0 else {
            base = nil
            watch = nil
            return
        }
        guard let mapped = mmap(nil, count, PROT_READ, MAP_PRIVATE, descriptor, 0), mapped != MAP_FAILED else {
            throw Errno(rawValue: errno)
        }
        base = mapped
        watch = MappedRegions.watch(mapped, count: count)
    }

    deinit {
        if let watch { MappedRegions.forget(watch) }
        if let base { munmap(base, count) }
    }

    /// Whether every byte read from the mapping so far was the file's: false once a read met a
    /// page the file no longer had (it was cut short while mapped).
    public var isIntact: Bool {
        guard let watch else { return true }
        return !MappedRegions.lostBytes(watch)
    }

    /// The bytes, without a copy; they keep the mapping alive.
    public var data: Data {
        guard let base else { return Data() }
        return Data(bytesNoCopy: base, count: count, deallocator: .custom { _, _ in withExtendedLifetime(self) {} })
    }

    /// Lets every page read so far leave the process's memory; the bytes stay readable.
    public func releaseResidentPages() {
        guard let base else { return }
        _ = madvise(base, count, MADV_DONTNEED)
    }
}
