import Testing

@testable import ImgviewImaging

@Suite("EXIF orientation")
struct OrientationTests {
    /// A minimal JPEG: SOI, one APP1 Exif segment holding `tiff`, then EOI.
    func jpeg(tiff: [UInt8]) -> [UInt8] {
        let body = Array("Exif".utf8) + [0, 0] + tiff
        let length = body.count + 2
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + body + [0xFF, 0xD9]
    }

    func tiff(orientation: UInt16, bigEndian: Bool, type: UInt16 = 3) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) -> [UInt8] {
            bigEndian ? u16(UInt16(v >> 16)) + u16(UInt16(v & 0xFFFF)) : u16(UInt16(v & 0xFFFF)) + u16(UInt16(v >> 16))
        }
        let value = type == 3 ? u16(orientation) + [0, 0] : u32(UInt32(orientation))
        return (bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]) + u16(42) + u32(8) + u16(2)
            + u16(0x010F) + u16(2) + u32(1) + [0x41, 0, 0, 0]  // Make: an unrelated tag first
            + u16(0x0112) + u16(type) + u32(1) + value + u32(0)
    }

    /// What the probe reads of `bytes`' orientation.
    func orientation(in bytes: [UInt8]) -> ImageOrientation {
        ImageProbe.read(ArrayBytes(bytes))?.orientation ?? .up
    }

    @Test(arguments: 1...8, [true, false])
    func readsEveryValueInBothByteOrders(value: Int, bigEndian: Bool) {
        let bytes = jpeg(tiff: tiff(orientation: UInt16(value), bigEndian: bigEndian))
        #expect(orientation(in: bytes).rawValue == value)
    }

    @Test func acceptsALongValue() {
        #expect(orientation(in: jpeg(tiff: tiff(orientation: 6, bigEndian: false, type: 4))) == .right)
    }

    @Test func malformedExifMeansUpright() {
        let good = tiff(orientation: 6, bigEndian: true)
        // Every truncation of the TIFF block, and nonsense values, fall back to upright without trapping.
        for length in 0..<good.count {
            _ = orientation(in: jpeg(tiff: Array(good.prefix(length))))
        }
        #expect(orientation(in: jpeg(tiff: Array(good.prefix(20)))) == .up)
        #expect(orientation(in: jpeg(tiff: tiff(orientation: 9, bigEndian: true))) == .up)
        var badOffset = good
        badOffset[7] = 0xF0  // IFD offset past the end
        #expect(orientation(in: jpeg(tiff: badOffset)) == .up)
        // A segment length running past the end of the file.
        #expect(orientation(in: [0xFF, 0xD8, 0xFF, 0xE1, 0xFF, 0xFF, 0x45]) == .up)
    }

    @Test func readsPNGeXIfChunks() {
        let tiff = tiff(orientation: 8, bigEndian: true)
        let chunk = [0, 0, 0, UInt8(tiff.count)] + Array("eXIf".utf8) + tiff + [0, 0, 0, 0]
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk
        #expect(orientation(in: png) == .left)
    }

    @Test func turnsPixelsUpright() {
        // Stored 3×2: a b c / d e f, one distinct red value per pixel.
        let stored = PixelBuffer(width: 3, height: 2, bytes: (1...6).flatMap { [UInt8($0), 0, 0, 255] })
        func reds(_ orientation: ImageOrientation) -> [UInt8] {
            let upright = orientation.apply(to: stored)
            return stride(from: 0, to: upright.bytes.count, by: 4).map { upright.bytes[$0] }
        }
        #expect(reds(.up) == [1, 2, 3, 4, 5, 6])
        #expect(reds(.upMirrored) == [3, 2, 1, 6, 5, 4])
        #expect(reds(.down) == [6, 5, 4, 3, 2, 1])
        #expect(reds(.downMirrored) == [4, 5, 6, 1, 2, 3])
        #expect(reds(.leftMirrored) == [1, 4, 2, 5, 3, 6])
        #expect(reds(.right) == [4, 1, 5, 2, 6, 3])
        #expect(reds(.rightMirrored) == [6, 3, 5, 2, 4, 1])
        #expect(reds(.left) == [3, 6, 2, 5, 1, 4])
        #expect(ImageOrientation.right.apply(to: stored).width == 2)
    }
}
