internal import CZlib

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Compresses with zlib, for the loopback server's encoded bodies (`Fault.Encoding`).
public enum Deflater {
    /// The wrapper around the deflate stream.
    public enum Format: Sendable {
        /// gzip (RFC 1952): HTTP's `gzip`.
        case gzip
        /// zlib (RFC 1950): HTTP's `deflate`.
        case zlib
        /// Deflate without a wrapper, as some servers send for `deflate`.
        case raw

        var windowBits: Int32 {
            switch self {
            case .gzip: 15 + 16
            case .zlib: 15
            case .raw: -15
            }
        }
    }

    public struct Failure: Error {
        public let code: Int32
    }

    public static func compress(_ data: Data, as format: Format = .gzip) throws -> Data {
        var stream = z_stream()
        var status = imgview_deflate_init(&stream, Z_DEFAULT_COMPRESSION, format.windowBits)
        guard status == Z_OK else { throw Failure(code: status) }
        defer { deflateEnd(&stream) }

        var input = [UInt8](data)
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        return try input.withUnsafeMutableBufferPointer { inputBuffer in
            stream.next_in = inputBuffer.baseAddress
            stream.avail_in = uInt(inputBuffer.count)
            repeat {
                try buffer.withUnsafeMutableBufferPointer { outputBuffer in
                    stream.next_out = outputBuffer.baseAddress
                    stream.avail_out = uInt(outputBuffer.count)
                    status = deflate(&stream, Z_FINISH)
                    guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                        throw Failure(code: status)
                    }
                    output.append(outputBuffer.baseAddress!, count: outputBuffer.count - Int(stream.avail_out))
                }
            } while status != Z_STREAM_END
            return output
        }
    }
}
