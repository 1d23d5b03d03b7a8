/// Shrinks decoded pixels by a whole factor, averaging each block in linear light.
///
/// For decoders whose library cannot scale while decoding (GIF, AVIF, BMP, animated WebP):
/// the image is reduced as soon as it is decoded, so what is kept, and what every later
/// stage touches, is no larger than the preview needs. Averages are weighted by alpha, so a
/// transparent pixel's colour does not bleed into its neighbours.
public enum PixelReducer {
    /// The largest whole factor by which `width × height` still covers twice `minimum` on each side
    /// (1 when none is asked).
    ///
    /// Twice, because the renderer scales the result once more, by a ratio that is not whole: from
    /// at least two pixels per sample its area average stays close to averaging the original, where
    /// from just over one it blurs across block edges, and previews score lower (DECISIONS.md,
    /// "Figures once in code comments").
    public static func factor(width: Int, height: Int, covering minimum: (width: Int, height: Int)?) -> Int {
        guard let minimum else { return 1 }
        // Each reduced side is at least side / factor, so these factors always cover.
        return max(1, min(width / max(2 * minimum.width, 1), height / max(2 * minimum.height, 1)))
    }

    /// The factor for an image whose library holds `heldBytes` at full size while its reduced
    /// RGBA is built beside them: twice `minimum`, as `factor(width:height:covering:)` gives, when
    /// the output fits in what the library leaves of `budget` (the request's `maxDecodeBytes`), or
    /// in a sixteenth of it (4.5 MB at the default, more than twice an 80×24 box needs); else the
    /// smallest reduction that fits, going no further than covering `minimum` once, or `smallest`
    /// (a pixel preview's own pixels, without the room it asks for) where it is given. An output
    /// summed in any order costs `bytesPerPixel` 20 (`RowDownscaler`'s sums and its bytes).
    ///
    /// Full screen, twice the box is up to 18 MB of output, and beside an AVIF's or a lossless
    /// WebP's full-size buffers near the limit that passed 100 MB at the peak (DECISIONS.md,
    /// "One row of sums; the output beside a library's full-size buffers").
    public static func factor(
        width: Int, height: Int, covering minimum: (width: Int, height: Int)?, atLeast smallest: (width: Int, height: Int)? = nil,
        beside heldBytes: Int, within budget: Int, bytesPerPixel: Int = 4
    ) -> Int {
        let twice = factor(width: width, height: height, covering: minimum)
        let once = RowDownscaler.reduction(sourceWidth: width, sourceHeight: height, covering: smallest ?? minimum)
        let room = max(budget - heldBytes, budget / 16)
        for factor in twice..<max(twice, once) {
            let reduced = reducedSize(width: width, height: height, factor: factor)
            if reduced.width.multipliedReportingOverflow(by: reduced.height * bytesPerPixel).partialValue <= room { return factor }
        }
        return max(twice, once)
    }

    /// The reduced size: partial blocks at the right and bottom edges become whole pixels.
    public static func reducedSize(width: Int, height: Int, factor: Int) -> (width: Int, height: Int) {
        ((width + factor - 1) / factor, (height + factor - 1) / factor)
    }

    /// `source` (RGBA rows of `width` pixels, no padding; RGB, opaque, when `channels` is 3)
    /// reduced by `factor`, as RGBA.
    public static func reduce(_ source: UnsafeBufferPointer<UInt8>, width: Int, height: Int, factor: Int, channels: Int = 4) -> PixelBuffer
    {
        precondition(channels == 3 || channels == 4, "RGB or RGBA")
        precondition(source.count >= width * height * channels, "reducer source too short")
        if factor <= 1, channels == 4 { return PixelBuffer(width: width, height: height, bytes: Array(source[0..<width * height * 4])) }
        let (outWidth, outHeight) = reducedSize(width: width, height: height, factor: factor)
        var output = [UInt8](repeating: 0, count: outWidth * outHeight * 4)
        // Per output column of the current block row: alpha-weighted linear red, green, blue, and alpha.
        var sums = [Float](repeating: 0, count: outWidth * 4)
        let linear = SRGB.toLinear
        linear.withUnsafeBufferPointer { toLinear in
            sums.withUnsafeMutableBufferPointer { sums in
                output.withUnsafeMutableBufferPointer { output in
                    for outY in 0..<outHeight {
                        for index in 0..<sums.count { sums[index] = 0 }
                        let firstRow = outY * factor
                        let rows = min(factor, height - firstRow)
                        for y in firstRow..<firstRow + rows {
                            var pixel = y * width * channels
                            for outX in 0..<outWidth {
                                // One block's share of this row, summed locally: no division per pixel.
                                var (red, green, blue, coverage): (Float, Float, Float, Float) = (0, 0, 0, 0)
                                for _ in 0..<min(factor, width - outX * factor) {
                                    let alpha = channels == 4 ? Float(source[pixel + 3]) * (1 / 255) : 1
                                    red += toLinear[Int(source[pixel])] * alpha
                                    green += toLinear[Int(source[pixel + 1])] * alpha
                                    blue += toLinear[Int(source[pixel + 2])] * alpha
                                    coverage += alpha
                                    pixel += channels
                                }
                                let sum = outX * 4
                                sums[sum] += red
                                sums[sum + 1] += green
                                sums[sum + 2] += blue
                                sums[sum + 3] += coverage
                            }
                        }
                        for outX in 0..<outWidth {
                            let sum = outX * 4
                            let columns = min(factor, width - outX * factor)
                            let coverage = sums[sum + 3]
                            guard coverage > 0 else { continue }  // wholly transparent: stays zero
                            let pixel = (outY * outWidth + outX) * 4
                            output[pixel] = SRGB.byte(fromLinear: sums[sum] / coverage)
                            output[pixel + 1] = SRGB.byte(fromLinear: sums[sum + 1] / coverage)
                            output[pixel + 2] = SRGB.byte(fromLinear: sums[sum + 2] / coverage)
                            output[pixel + 3] = UInt8(min(255, (coverage / Float(rows * columns) * 255).rounded()))
                        }
                    }
                }
            }
        }
        return PixelBuffer(width: outWidth, height: outHeight, bytes: output)
    }
}
