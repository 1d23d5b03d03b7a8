import CTurboJPEG
import ImgviewCore

/// Decodes JPEG with TurboJPEG at the smallest DCT scale that still covers the size asked for.
///
/// CMYK and YCCK files are decoded as CMYK and converted here, because TurboJPEG 2.x will
/// not convert them to RGB itself. A file that ends early keeps what decoded (the rest is
/// grey) and comes back with a warning; see DECISIONS.md.
public struct JPEGDecoder: ImageDecoding {
    public init() {}

    public func inspect(_ bytes: [UInt8]) throws(ImageDecodingError) -> ImageHeader {
        let handle = try Self.makeHandle()
        defer { tjDestroy(handle) }
        return try header(bytes, handle: handle).header
    }

    public func decode(_ bytes: [UInt8], request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        let handle = try Self.makeHandle()
        defer { tjDestroy(handle) }
        let (header, colorspace) = try header(bytes, handle: handle)
        let (width, height) = (header.storedWidth, header.storedHeight)
        guard width.multipliedReportingOverflow(by: height).partialValue <= request.maxPixelCount,
            width <= Int(Int32.max) / 4, height <= Int(Int32.max) / 4
        else {
            throw .tooLarge(width: width, height: height, limit: request.maxPixelCount)
        }
        // The minimum size is upright; the DCT scale applies to the stored image.
        let minimum = request.minimumSize.map { header.orientation.swapsAxes ? ($0.height, $0.width) : ($0.width, $0.height) }
        let (scaledWidth, scaledHeight) = Self.scaledSize(width: width, height: height, covering: minimum)

        let isCMYK = colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue)
        let pixelFormat = isCMYK ? TJPF_CMYK : TJPF_RGBA
        var output = [UInt8](repeating: 0, count: scaledWidth * scaledHeight * 4)
        let flags = Int32(TJFLAG_FASTDCT | TJFLAG_FASTUPSAMPLE)
        let status = bytes.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                tjDecompress2(
                    handle, source.baseAddress, UInt(source.count), destination.baseAddress,
                    Int32(scaledWidth), 0, Int32(scaledHeight), Int32(pixelFormat.rawValue), flags)
            }
        }
        var warning: String?
        if status != 0 {
            let detail = Self.errorText(handle)
            // A warning means pixels were produced (e.g. "Premature end of JPEG file"); fatal means none.
            guard tjGetErrorCode(handle) == Int32(TJERR_WARNING.rawValue) else {
                throw .corrupt(.jpeg, detail: detail)
            }
            warning = "damaged or truncated JPEG (\(detail)); showing what could be decoded"
        }
        if isCMYK { Self.convertCMYKToRGBA(&output) }
        let stored = PixelBuffer(width: scaledWidth, height: scaledHeight, bytes: output)
        return DecodedImage(header: header, pixels: header.orientation.apply(to: stored), warning: warning)
    }

    /// The smallest TurboJPEG scaled size whose both sides reach `minimum`; full size when none asked.
    static func scaledSize(width: Int, height: Int, covering minimum: (Int, Int)?) -> (Int, Int) {
        guard let (minimumWidth, minimumHeight) = minimum else { return (width, height) }
        var count: Int32 = 0
        guard let factors = tjGetScalingFactors(&count) else { return (width, height) }
        var best = (width, height)
        for index in 0..<Int(count) {
            let factor = factors[index]
            let (num, denom) = (Int(factor.num), Int(factor.denom))
            // Only reductions: enlarging in the decoder costs memory and buys nothing.
            guard num <= denom else { continue }
            let scaled = ((width * num + denom - 1) / denom, (height * num + denom - 1) / denom)
            if scaled.0 >= minimumWidth, scaled.1 >= minimumHeight, scaled.0 * scaled.1 < best.0 * best.1 {
                best = scaled
            }
        }
        return best
    }

    private func header(_ bytes: [UInt8], handle: tjhandle) throws(ImageDecodingError) -> (header: ImageHeader, colorspace: Int32) {
        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = 0
        var colorspace: Int32 = 0
        let status = bytes.withUnsafeBufferPointer { source in
            tjDecompressHeader3(handle, source.baseAddress, UInt(source.count), &width, &height, &subsampling, &colorspace)
        }
        guard status == 0 else {
            let detail = Self.errorText(handle)
            // Without a complete header there is nothing to show: a truncation this early is fatal.
            if detail.saysDataEnded { throw .truncated(.jpeg) }
            throw .corrupt(.jpeg, detail: detail)
        }
        guard width > 0, height > 0 else { throw .corrupt(.jpeg, detail: "zero width or height") }
        let header = ImageHeader(
            format: .jpeg, storedWidth: Int(width), storedHeight: Int(height),
            orientation: ExifReader.orientation(in: bytes))
        return (header, colorspace)
    }

    private static func makeHandle() throws(ImageDecodingError) -> tjhandle {
        guard let handle = tjInitDecompress() else {
            throw .corrupt(.jpeg, detail: "TurboJPEG could not start: \(String(cString: tjGetErrorStr2(nil)))")
        }
        return handle
    }

    private static func errorText(_ handle: tjhandle) -> String {
        String(cString: tjGetErrorStr2(handle))
    }

    /// CMYK as Adobe writes it (inverted: 255 means no ink), which is what JPEG files carry.
    private static func convertCMYKToRGBA(_ pixels: inout [UInt8]) {
        pixels.withUnsafeMutableBufferPointer { buffer in
            for index in stride(from: 0, to: buffer.count, by: 4) {
                let k = UInt32(buffer[index + 3])
                buffer[index] = UInt8((UInt32(buffer[index]) * k + 127) / 255)
                buffer[index + 1] = UInt8((UInt32(buffer[index + 1]) * k + 127) / 255)
                buffer[index + 2] = UInt8((UInt32(buffer[index + 2]) * k + 127) / 255)
                buffer[index + 3] = 255
            }
        }
    }
}

extension String {
    /// Whether a TurboJPEG message says the data ran out.
    fileprivate var saysDataEnded: Bool {
        contains("end of") || contains("Premature") || contains("insufficient")
    }
}
