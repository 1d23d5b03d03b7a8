import Testing

@testable import ImgviewCodecs
@testable import ImgviewImaging

/// HEIC's planes reduced before conversion: every block is the conversion of its pixels' mean
/// luma (in linear light) and the mean of the chroma each of its pixels takes, edges included.
@Suite("Y′CbCr planes reduced before conversion")
struct YCbCrPlaneReducerTests {
    /// A plane of `width × height` whose samples vary in both directions, with `padding` bytes past each row.
    static func plane(_ width: Int, _ height: Int, padding: Int, seed: Int) -> [UInt8] {
        (0..<height).flatMap { y in
            (0..<width).map { x in UInt8(truncatingIfNeeded: (x * 37 + y * 91 + seed * 53 + (x * y) % 29) % 256) }
                + [UInt8](repeating: 0xEE, count: padding)
        }
    }

    @Test(arguments: [(37, 23, 1, 1, 3), (40, 30, 1, 1, 4), (33, 17, 1, 0, 2), (21, 19, 0, 0, 5), (64, 48, 1, 1, 7)])
    func blocksAreTheConversionOfTheirMeans(width: Int, height: Int, shiftAcross: Int, shiftDown: Int, factor: Int) throws {
        let (chromaWidth, chromaHeight) = ((width + shiftAcross) >> shiftAcross, (height + shiftDown) >> shiftDown)
        let (lumaStride, chromaStride) = (width + 3, chromaWidth + 5)
        let luma = Self.plane(width, height, padding: 3, seed: 1)
        let blue = Self.plane(chromaWidth, chromaHeight, padding: 5, seed: 2)
        let red = Self.plane(chromaWidth, chromaHeight, padding: 5, seed: 3)
        let conversion = try #require(YCbCrConversion(matrix: 6, fullRange: true))
        let reduced = luma.withUnsafeBufferPointer { luma in
            blue.withUnsafeBufferPointer { blue in
                red.withUnsafeBufferPointer { red in
                    YCbCrPlaneReducer(
                        luma: .init(base: luma.baseAddress!, stride: lumaStride, width: width, height: height),
                        blue: .init(base: blue.baseAddress!, stride: chromaStride, width: chromaWidth, height: chromaHeight),
                        red: .init(base: red.baseAddress!, stride: chromaStride, width: chromaWidth, height: chromaHeight),
                        shiftAcross: shiftAcross, shiftDown: shiftDown, conversion: conversion
                    ).reduce(by: factor)
                }
            }
        }
        let (outWidth, outHeight) = ((width + factor - 1) / factor, (height + factor - 1) / factor)
        #expect(reduced.width == outWidth && reduced.height == outHeight)
        for outY in 0..<outHeight {
            for outX in 0..<outWidth {
                var (linear, chromaSums, count): (Float, [Int], Int) = (0, [0, 0], 0)
                for y in (outY * factor)..<min(height, (outY + 1) * factor) {
                    var row: Float = 0
                    for x in (outX * factor)..<min(width, (outX + 1) * factor) {
                        let chroma = (y >> shiftDown) * chromaStride + (x >> shiftAcross)
                        row += SRGB.toLinear[Int(luma[y * lumaStride + x])]
                        chromaSums[0] += Int(blue[chroma])
                        chromaSums[1] += Int(red[chroma])
                        count += 1
                    }
                    linear += row
                }
                let means = [SRGB.byte(fromLinear: linear / Float(count))] + chromaSums.map { UInt8(($0 + count / 2) / count) }
                var expected = [UInt8](repeating: 0, count: 4)
                means.withUnsafeBufferPointer { means in
                    expected.withUnsafeMutableBufferPointer { row in
                        conversion.convert(
                            luma: means.baseAddress!, blue: means.baseAddress! + 1, red: means.baseAddress! + 2, width: 1, chromaShift: 0,
                            into: row)
                    }
                }
                let pixel = reduced.pixel(x: outX, y: outY)
                #expect([pixel.0, pixel.1, pixel.2, pixel.3] == expected, "block \(outX), \(outY)")
            }
        }
    }
}
