import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// Reads bytes at an offset of an open file (`pread`), however many calls it takes.
package enum PositionalRead {
    /// Up to `count` bytes from `offset`; fewer at the end of the file or on an error.
    package static func bytes(_ descriptor: Int32, at offset: Int, count: Int) -> [UInt8] {
        guard offset >= 0, count > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, filled in
            filled = 0
            while filled < count {
                let rest = UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[filled...]))
                guard let got = try? FileDescriptor(rawValue: descriptor).read(fromAbsoluteOffset: Int64(offset + filled), into: rest),
                    got > 0
                else { return }
                filled += got
            }
        }
    }
}
