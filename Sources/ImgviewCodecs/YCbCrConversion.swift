/// Turns rows of 8-bit Y′CbCr planes into RGBA as libheif 1.15 would (its `Op_YCbCr420_to_RGB24`
/// for full range, `Op_YCbCr_to_RGB` for limited): the matrix from the stream's nclx code point,
/// BT.601 when there is none, chroma taken from the sample that covers the pixel.
///
/// It lets a HEIC be decoded to its planes and reduced row by row, so that libheif's RGB copy of
/// the whole image is never made (DECISIONS.md, "HEIC within 100 MB").
struct YCbCrConversion {
    private let redFromCr: Float
    private let greenFromCb: Float
    private let greenFromCr: Float
    private let blueFromCb: Float
    private let fullRange: Bool

    /// nil for the matrices libheif treats otherwise (identity, YCgCo, derived from primaries).
    init?(matrix: Int, fullRange: Bool) {
        // Kr and Kb of ITU-T H.273's matrices; 2 (unspecified) and 3 (reserved) are BT.601, as in libheif.
        let weights: (red: Float, blue: Float)
        switch matrix {
        case 1: weights = (0.2126, 0.0722)
        case 2, 3, 5, 6: weights = (0.299, 0.114)
        case 4: weights = (0.30, 0.11)
        case 7: weights = (0.212, 0.087)
        case 9, 10: weights = (0.2627, 0.0593)
        default: return nil
        }
        let green = 1 - weights.red - weights.blue
        redFromCr = 2 * (1 - weights.red)
        blueFromCb = 2 * (1 - weights.blue)
        greenFromCb = -2 * weights.blue * (1 - weights.blue) / green
        greenFromCr = -2 * weights.red * (1 - weights.red) / green
        self.fullRange = fullRange
    }

    /// Fills `row` (RGBA, opaque) from one row of luma and the chroma rows that cover it;
    /// `chromaShift` is 1 where chroma has half as many samples across (4:2:0, 4:2:2), else 0.
    func convert(
        luma: UnsafePointer<UInt8>, blue: UnsafePointer<UInt8>, red: UnsafePointer<UInt8>, width: Int, chromaShift: Int,
        into row: UnsafeMutableBufferPointer<UInt8>
    ) {
        if fullRange {
            // libheif's fixed point: coefficients in 1/256, rounded.
            let (rCr, gCb, gCr, bCb) = (
                Int((256 * redFromCr).rounded()), Int((256 * greenFromCb).rounded()), Int((256 * greenFromCr).rounded()),
                Int((256 * blueFromCb).rounded())
            )
            for x in 0..<width {
                let y = Int(luma[x])
                let (cb, cr) = (Int(blue[x >> chromaShift]) - 128, Int(red[x >> chromaShift]) - 128)
                row[4 * x] = Self.clipped(y + ((rCr * cr + 128) >> 8))
                row[4 * x + 1] = Self.clipped(y + ((gCb * cb + gCr * cr + 128) >> 8))
                row[4 * x + 2] = Self.clipped(y + ((bCb * cb + 128) >> 8))
                row[4 * x + 3] = 255
            }
        } else {
            for x in 0..<width {
                // libheif's expansion of video range (16–235, chroma 16–240).
                let y = (Float(luma[x]) - 16) * 1.1689
                let cb = (Float(blue[x >> chromaShift]) - 128) * 1.1429
                let cr = (Float(red[x >> chromaShift]) - 128) * 1.1429
                row[4 * x] = Self.clipped(y + redFromCr * cr)
                row[4 * x + 1] = Self.clipped(y + greenFromCb * cb + greenFromCr * cr)
                row[4 * x + 2] = Self.clipped(y + blueFromCb * cb)
                row[4 * x + 3] = 255
            }
        }
    }

    private static func clipped(_ value: Int) -> UInt8 {
        UInt8(clamping: value)
    }

    private static func clipped(_ value: Float) -> UInt8 {
        UInt8(clamping: Int((value + 0.5).rounded(.down)))
    }
}
