/// Reads the pixel size from a JPEG XL file's SizeHeader, in a bare codestream or in the first
/// `jxlc`/`jxlp` box of the container.
///
/// The header is a few bit-packed fields right after the codestream's `FF 0A` signature
/// (ISO/IEC 18181-1, "SizeHeader"); every read is bounds-checked.
enum JPEGXLHeader {
    /// Width over height for the seven fixed aspect ratios a header may name instead of a width.
    private static let ratios: [(Int, Int)] = [(1, 1), (12, 10), (4, 3), (3, 2), (16, 9), (5, 4), (2, 1)]

    static func size(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        if bytes.starts(with: [0xFF, 0x0A]) { return codestreamSize(bytes, from: 2) }
        for box in ISOMediaHeader.boxes(in: bytes, 0..<bytes.count) {
            switch box.type {
            case "jxlc": return codestreamSize(bytes, from: box.payload.lowerBound + 2, signature: box.payload.lowerBound)
            // A partial codestream box starts with its 4-byte sequence number.
            case "jxlp": return codestreamSize(bytes, from: box.payload.lowerBound + 6, signature: box.payload.lowerBound + 4)
            default: continue
            }
        }
        return nil
    }

    private static func codestreamSize(_ bytes: [UInt8], from start: Int, signature: Int? = nil) -> (width: Int, height: Int)? {
        if let signature {
            guard signature + 2 <= bytes.count, bytes[signature] == 0xFF, bytes[signature + 1] == 0x0A else { return nil }
        }
        var reader = BitReader(bytes: bytes, position: start * 8)
        guard let small = reader.read(1) else { return nil }
        let height: Int
        let ratio: Int
        if small == 1 {
            guard let heightInEighths = reader.read(5), let r = reader.read(3) else { return nil }
            height = (heightInEighths + 1) * 8
            ratio = r
            if ratio == 0 {
                guard let widthInEighths = reader.read(5) else { return nil }
                return ((widthInEighths + 1) * 8, height)
            }
        } else {
            guard let h = reader.readSize(), let r = reader.read(3) else { return nil }
            height = h
            ratio = r
            if ratio == 0 {
                guard let width = reader.readSize() else { return nil }
                return (width, height)
            }
        }
        let (numerator, denominator) = ratios[ratio - 1]
        return (height * numerator / denominator, height)
    }

    /// Reads bits least significant first, as JPEG XL packs them.
    private struct BitReader {
        let bytes: [UInt8]
        var position: Int

        mutating func read(_ count: Int) -> Int? {
            guard position + count <= bytes.count * 8 else { return nil }
            var value = 0
            for bit in 0..<count {
                let index = position + bit
                value |= Int(bytes[index / 8] >> (index % 8) & 1) << bit
            }
            position += count
            return value
        }

        /// A U32 of 9, 13, 18 or 30 bits, chosen by a 2-bit selector, plus one.
        mutating func readSize() -> Int? {
            guard let selector = read(2), let value = read([9, 13, 18, 30][selector]) else { return nil }
            return value + 1
        }
    }
}
