import ImgviewImaging

/// Where a PNG decode puts its rows as they come: a downscaler for a final image, a canvas
/// that fills each pass's blocks for one still arriving.
protocol PNGRowSink {
    /// Row `y` of the stored image; for an interlaced image only the columns of Adam7 `pass`
    /// (0–6) are real, for a plain one (`pass` −1) all of them.
    mutating func add(row y: Int, pixels: UnsafeBufferPointer<UInt8>, pass: Int)
    /// The image; the sink gives its bytes away, so it is called once, last.
    mutating func finish() -> PixelBuffer
}

extension RowDownscaler: PNGRowSink {
    mutating func add(row y: Int, pixels: UnsafeBufferPointer<UInt8>, pass: Int) {
        add(
            row: y, pixels: pixels, firstColumn: pass >= 0 ? PNGDecoder.adam7FirstColumn[pass] : 0,
            step: pass >= 0 ? PNGDecoder.adam7ColumnStep[pass] : 1)
    }
}

/// An image being shown while its passes arrive: each pixel of a pass is painted over the block
/// it stands for until later passes paint finer ones over it, as browsers show interlaced
/// PNGs. Kept at the same whole-number reduction as `RowDownscaler`, so memory follows the output.
struct PassCanvas: PNGRowSink {
    let factor: Int
    let width: Int
    let height: Int
    private let sourceWidth: Int
    private var bytes: [UInt8]

    init(sourceWidth: Int, sourceHeight: Int, covering minimum: (width: Int, height: Int)?) {
        let factor = RowDownscaler.reduction(sourceWidth: sourceWidth, sourceHeight: sourceHeight, covering: minimum)
        self.factor = factor
        self.sourceWidth = sourceWidth
        width = (sourceWidth + factor - 1) / factor
        height = (sourceHeight + factor - 1) / factor
        bytes = [UInt8](repeating: 0, count: width * height * 4)
    }

    mutating func add(row y: Int, pixels: UnsafeBufferPointer<UInt8>, pass: Int) {
        let (first, step) = pass >= 0 ? (PNGDecoder.adam7FirstColumn[pass], PNGDecoder.adam7ColumnStep[pass]) : (0, 1)
        // The block a pixel stands for until later passes fill it: never a pixel of an earlier pass.
        let (blockWidth, blockHeight) = pass >= 0 ? (Self.blockWidth[pass], Self.blockHeight[pass]) : (1, 1)
        let top = y / factor
        let bottom = min(height, max(top + 1, (y + blockHeight) / factor))
        var x = first
        while x < sourceWidth {
            let left = x / factor
            let right = min(width, max(left + 1, (x + blockWidth) / factor))
            for outputY in top..<bottom {
                for outputX in left..<right {
                    let target = (outputY * width + outputX) * 4
                    for channel in 0..<4 { bytes[target + channel] = pixels[x * 4 + channel] }
                }
            }
            x += step
        }
    }

    mutating func finish() -> PixelBuffer {
        let pixels = PixelBuffer(width: width, height: height, bytes: bytes)
        bytes = []
        return pixels
    }

    /// Adam7's blocks: what each pass's pixels stand for until the later passes arrive.
    private static let blockWidth = [8, 4, 4, 2, 2, 1, 1]
    private static let blockHeight = [8, 8, 4, 4, 2, 2, 1]
}
