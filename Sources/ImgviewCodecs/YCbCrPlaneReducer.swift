import ImgviewImaging

/// 8-bit Y′CbCr planes reduced by a whole factor before any conversion: each block's luma (in
/// linear light, as the sRGB curve decodes it, so that tone is kept as `RowDownscaler` keeps it),
/// and the chroma samples that cover its pixels (weighted by how many they cover, as encoded),
/// are averaged, and only the averages become RGBA (`YCbCrConversion`).
///
/// Converting every pixel of a 12 MP HEIC to RGB and summing its three channels in linear light
/// cost more than this (DECISIONS.md, "HEIC thumbnails for text previews: not below the box…").
struct YCbCrPlaneReducer {
    /// One 8-bit plane: its first byte, the bytes from one row to the next, and its size.
    struct Plane {
        var base: UnsafePointer<UInt8>
        var stride: Int
        var width: Int
        var height: Int
    }

    let luma: Plane
    let blue: Plane
    let red: Plane
    /// 1 where chroma has half as many samples across (4:2:0, 4:2:2), else 0; `shiftDown` likewise.
    let shiftAcross: Int
    let shiftDown: Int
    let conversion: YCbCrConversion

    /// The planes reduced by `factor` (at least 2): a partial block at the right or bottom edge
    /// becomes a whole pixel, as `PixelReducer.reducedSize` says.
    func reduce(by factor: Int) -> PixelBuffer {
        precondition(factor >= 2, "a reduction")
        let (outWidth, outHeight) = PixelReducer.reducedSize(width: luma.width, height: luma.height, factor: factor)
        var output = [UInt8](repeating: 255, count: outWidth * outHeight * 4)
        var lumaSums = [Float](repeating: 0, count: outWidth)
        // Blue's sums, then red's.
        var sums = [UInt64](repeating: 0, count: outWidth * 2)
        var averages = [UInt8](repeating: 0, count: outWidth * 3)
        output.withUnsafeMutableBufferPointer { output in
            sums.withUnsafeMutableBufferPointer { sums in
                averages.withUnsafeMutableBufferPointer { averages in
                    lumaSums.withUnsafeMutableBufferPointer { lumaSums in
                        for outY in 0..<outHeight {
                            let firstRow = outY * factor
                            let rows = firstRow..<min(luma.height, firstRow + factor)
                            for index in 0..<sums.count { sums[index] = 0 }
                            for index in 0..<lumaSums.count { lumaSums[index] = 0 }
                            addLuma(rows: rows, factor: factor, into: lumaSums)
                            addChroma(rows: rows, factor: factor, into: sums)
                            for outX in 0..<outWidth {
                                let columns = min(luma.width, (outX + 1) * factor) - outX * factor
                                let count = UInt64(columns * rows.count)
                                averages[outX] = SRGB.byte(fromLinear: lumaSums[outX] / Float(count))
                                for plane in 0..<2 {
                                    averages[(plane + 1) * outWidth + outX] = UInt8((sums[plane * outWidth + outX] + count / 2) / count)
                                }
                            }
                            let base = averages.baseAddress!
                            conversion.convert(
                                luma: base, blue: base + outWidth, red: base + 2 * outWidth, width: outWidth, chromaShift: 0,
                                into: UnsafeMutableBufferPointer(rebasing: output[(outY * outWidth * 4)..<((outY + 1) * outWidth * 4)]))
                        }
                    }
                }
            }
        }
        return PixelBuffer(width: outWidth, height: outHeight, bytes: output)
    }

    /// Luma of `rows` in linear light, summed per block of `factor` columns into `sums`.
    private func addLuma(rows: Range<Int>, factor: Int, into sums: UnsafeMutableBufferPointer<Float>) {
        SRGB.toLinear.withUnsafeBufferPointer { toLinear in
            for y in rows {
                let line = luma.base + y * luma.stride
                var x = 0
                var outX = 0
                while x < luma.width {
                    let end = min(luma.width, x + factor)
                    var sum: Float = 0
                    while x < end {
                        sum += toLinear[Int(line[x])]
                        x += 1
                    }
                    sums[outX] += sum
                    outX += 1
                }
            }
        }
    }

    /// Each chroma sample that covers pixels of `rows`, weighted by how many of a block's pixels
    /// it covers, summed into the first (blue) and second (red) halves of `sums`.
    private func addChroma(rows: Range<Int>, factor: Int, into sums: UnsafeMutableBufferPointer<UInt64>) {
        let outWidth = sums.count / 2
        let firstChromaRow = rows.lowerBound >> shiftDown
        let lastChromaRow = (rows.upperBound - 1) >> shiftDown
        for chromaY in firstChromaRow...lastChromaRow {
            // The rows of the block this chroma row covers.
            let covered = UInt64(min(rows.upperBound, (chromaY + 1) << shiftDown) - max(rows.lowerBound, chromaY << shiftDown))
            let blueLine = blue.base + chromaY * blue.stride
            let redLine = red.base + chromaY * red.stride
            for outX in 0..<outWidth {
                let (start, end) = (outX * factor, min(luma.width, (outX + 1) * factor))
                var (blueSum, redSum): (UInt64, UInt64) = (0, 0)
                for chromaX in (start >> shiftAcross)...((end - 1) >> shiftAcross) {
                    let columns = UInt64(min(end, (chromaX + 1) << shiftAcross) - max(start, chromaX << shiftAcross))
                    blueSum &+= columns * UInt64(blueLine[chromaX])
                    redSum &+= columns * UInt64(redLine[chromaX])
                }
                sums[outX] &+= covered * blueSum
                sums[outWidth + outX] &+= covered * redSum
            }
        }
    }
}
