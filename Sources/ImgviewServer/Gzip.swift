import CZlib
import Foundation

/// gzip compression through zlib, for the server's Content-Encoding fault.
enum Gzip {
    struct Failure: Error { let code: Int32 }

    static func compress(_ data: Data) throws -> Data {
        var stream = z_stream()
        var status = imgview_deflate_init_gzip(&stream, Z_DEFAULT_COMPRESSION)
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
