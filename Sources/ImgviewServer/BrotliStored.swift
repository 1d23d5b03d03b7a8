import Foundation

/// Brotli streams without compression, for the server's `br` bodies: the bytes in uncompressed
/// meta-blocks (RFC 7932 §9.2), which every brotli decoder reads, with no encoder library.
enum BrotliStored {
    /// The largest meta-block: MLEN - 1 in four nibbles.
    static let blockSize = 1 << 16

    static func encode(_ data: Data) -> Data {
        var bits = BitWriter()
        bits.write(0, count: 1)  // WBITS: 16
        var offset = data.startIndex
        while offset < data.endIndex {
            let count = min(blockSize, data.endIndex - offset)
            bits.write(0, count: 1)  // ISLAST
            bits.write(0, count: 2)  // MNIBBLES: 4
            bits.write(UInt32(count - 1), count: 16)  // MLEN - 1
            bits.write(1, count: 1)  // ISUNCOMPRESSED
            bits.alignToByte()
            bits.bytes.append(contentsOf: data[offset..<offset + count])
            offset += count
        }
        bits.write(1, count: 1)  // ISLAST
        bits.write(1, count: 1)  // ISLASTEMPTY
        bits.alignToByte()
        return Data(bits.bytes)
    }

    /// Bits packed from the least significant end of each byte, as brotli reads them.
    private struct BitWriter {
        var bytes: [UInt8] = []
        private var used = 8

        mutating func write(_ value: UInt32, count: Int) {
            for index in 0..<count {
                if used == 8 {
                    bytes.append(0)
                    used = 0
                }
                bytes[bytes.count - 1] |= UInt8((value >> UInt32(index)) & 1) << UInt8(used)
                used += 1
            }
        }

        mutating func alignToByte() {
            used = 8
        }
    }
}
