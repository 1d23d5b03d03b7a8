import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// The Linux-only system calls imgview uses, in one place: unnamed files (`O_TMPFILE`) that get
/// a name only once whole, copy-on-write clones (`FICLONE`) and in-kernel copies (`copy_file_range`).
///
/// Each has a portable fallback at its caller's level (a hidden named file; a read/write loop),
/// taken whenever the kernel or the file system says no.
package enum LinuxFileCalls {
    /// `O_TMPFILE`, which Swift's Glibc module does not export.
    private static let temporaryFlag: Int32 = 0o20_000_000 | O_DIRECTORY
    /// `FICLONE`, `_IOW(0x94, 9, int)`.
    private static let cloneRequest: UInt = 0x4004_9409

    /// An unnamed regular file in `folder`, or nil when the file system has no `O_TMPFILE`.
    package static func openUnnamedFile(in folder: Directory) throws(Errno) -> FileDescriptor? {
        let raw = openat(folder.descriptor.rawValue, ".", temporaryFlag | O_WRONLY | O_CLOEXEC, 0o644)
        if raw >= 0 { return FileDescriptor(rawValue: raw) }
        if errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL { return nil }
        throw Errno(rawValue: errno)
    }

    /// Gives the unnamed file `file` the name `name` in `folder`; fails with `EEXIST` rather than replace.
    package static func name(_ file: FileDescriptor, as name: String, in folder: Directory) throws(Errno) {
        guard linkat(AT_FDCWD, "/proc/self/fd/\(file.rawValue)", folder.descriptor.rawValue, name, AT_SYMLINK_FOLLOW) == 0 else {
            throw Errno(rawValue: errno)
        }
    }

    /// Makes `destination` (empty, open for writing) share `source`'s blocks; false when the file system cannot.
    package static func clone(_ source: FileDescriptor, into destination: FileDescriptor) -> Bool {
        ioctl(destination.rawValue, cloneRequest, source.rawValue) == 0
    }

    /// glibc's `copy_file_range`, which Swift's Glibc module does not declare.
    private typealias CopyFileRange =
        @convention(c) (
            Int32, UnsafeMutablePointer<Int64>?, Int32, UnsafeMutablePointer<Int64>?, Int, UInt32
        ) -> Int
    private static let copyFileRange: CopyFileRange? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "copy_file_range").map {
        unsafeBitCast($0, to: CopyFileRange.self)
    }

    /// Copies `source` from its start into `destination` inside the kernel; false when it cannot
    /// (another kind of file system on an old kernel, a special file) and nothing was copied.
    package static func copyInKernel(_ source: FileDescriptor, into destination: FileDescriptor) throws(Errno) -> Bool {
        guard let copyFileRange else { return false }
        var offset: Int64 = 0
        var copiedAny = false
        while true {
            let copied: Int
            do {
                copied = try Errno.retryingOnInterrupt { copyFileRange(source.rawValue, &offset, destination.rawValue, nil, 1 << 30, 0) }
            } catch {
                if !copiedAny, [EXDEV, EINVAL, ENOSYS, EOPNOTSUPP, EBADF].contains(error.rawValue) { return false }
                throw error
            }
            if copied == 0 { return true }
            copiedAny = true
        }
    }

    /// glibc's `fsetxattr`, which Swift's Glibc module does not declare.
    private typealias SetExtendedAttribute =
        @convention(c) (Int32, UnsafePointer<CChar>, UnsafeRawPointer?, Int, Int32) -> Int32
    private static let fsetxattr: SetExtendedAttribute? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "fsetxattr").map {
        unsafeBitCast($0, to: SetExtendedAttribute.self)
    }

    /// Sets the extended attribute `name` (`user.…`) of `file` to the bytes of `value`; throws
    /// `ENOTSUP` where the file system has none, `E2BIG`/`ENOSPC`/`ERANGE` for a value too long.
    package static func setExtendedAttribute(_ name: String, to value: String, on file: FileDescriptor) throws(Errno) {
        guard let fsetxattr else { throw Errno(rawValue: ENOTSUP) }
        var value = value
        let result = value.withUTF8 { bytes in fsetxattr(file.rawValue, name, bytes.baseAddress, bytes.count, 0) }
        guard result == 0 else { throw Errno(rawValue: errno) }
    }

    /// `UTIME_OMIT`, which Swift's Glibc module does not export: leave this time as it is.
    private static let omitTime = (1 << 30) - 2

    /// Sets the modification time of `file`, leaving its access time.
    package static func setModificationTime(of file: FileDescriptor, to date: Date) throws(Errno) {
        var times = modificationTimes(date)
        guard futimens(file.rawValue, &times) == 0 else { throw Errno(rawValue: errno) }
    }

    /// Sets the modification time of the regular file `name` in `folder`; a link, or a file with
    /// other names (a hard link planted to a file elsewhere), is left alone.
    package static func setModificationTime(of name: String, in folder: Directory, to date: Date) throws(Errno) {
        let file = try folder.openRegular(name, flags: O_RDONLY, soleName: true)
        defer { try? file.close() }
        try setModificationTime(of: file, to: date)
    }

    private static func modificationTimes(_ date: Date) -> [timespec] {
        [timespec(tv_sec: 0, tv_nsec: omitTime), timespec(tv_sec: Int(date.timeIntervalSince1970.rounded(.down)), tv_nsec: 0)]
    }
}
