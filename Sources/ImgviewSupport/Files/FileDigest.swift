internal import Crypto
import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Hashes files without reading them into memory whole.
package enum FileDigest {
    /// The SHA-256 of the file at `url`, read in blocks.
    package static func sha256(of url: URL) throws -> String {
        let file = try FileDescriptor.open(FilePath(url.path), .readOnly, options: .closeOnExec)
        defer { try? file.close() }
        return try sha256(of: file)
    }

    /// The SHA-256 of everything in `file`, read from its start without moving its offset.
    package static func sha256(of file: FileDescriptor) throws -> String {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var hasher = SHA256()
        var offset: Int64 = 0
        while true {
            let count = try file.read(fromAbsoluteOffset: offset, into: buffer)
            if count == 0 { return hasher.finalize().hexString }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            offset += Int64(count)
        }
    }
}
