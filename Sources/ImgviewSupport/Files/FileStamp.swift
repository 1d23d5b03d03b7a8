#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// Who a file is and what state it is in: device, inode, size and modification time. When any of
/// them changes, whatever was made from the file's bytes is out of date.
public struct FileStamp: Sendable, Hashable {
    let device: UInt64
    let inode: UInt64
    let size: Int64
    let modifiedSeconds: Int
    let modifiedNanoseconds: Int

    /// The stamp of the file at `url` now, nil if it cannot be examined.
    public init?(of url: URL) {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return nil }
        self.init(status: info)
    }

    /// The stamp of the file whose status is `info` (from `fstat` of a descriptor being read).
    public init(status info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modifiedSeconds = Int(info.st_mtim.tv_sec)
        modifiedNanoseconds = Int(info.st_mtim.tv_nsec)
    }
}
