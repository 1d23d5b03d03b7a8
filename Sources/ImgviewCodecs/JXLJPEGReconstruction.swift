internal import CJXL
import ImgviewImaging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension JXLDecoder {
    /// A JPEG that cjxl recompressed (its default for JPEG input) rebuilt from its reconstruction
    /// data as the very JPEG it was, then decoded by libjpeg at the DCT scale that covers the
    /// request: libjxl 0.7 has no reduced decoding of its own, and rebuilding costs a fraction of
    /// rendering every pixel (DECISIONS.md, "HEIC thumbnails for text previews: not below the box…").
    ///
    /// Nil, and the pixels are decoded as before, when the box needs the whole image, the file
    /// holds no reconstruction data (or is an animation), the rebuilt JPEG would pass
    /// `jpegLimit`, or it does not decode cleanly as a JPEG of the same size. Only a cancellation
    /// is thrown: any other trouble is left to the pixel decode to report.
    static func decodeAsJPEG(_ bytes: Data, header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage? {
        guard header.animation == nil, let minimum = request.minimumSize else { return nil }
        let (width, height) = (header.storedWidth, header.storedHeight)
        // The minimum is upright; the DCT scale applies to the stored image.
        let stored = header.orientation.swapsAxes ? (minimum.height, minimum.width) : (minimum.width, minimum.height)
        guard JPEGDecoder.scaleInEighths(width: width, height: height, covering: stored) < 8 else { return nil }
        let rebuilt: Data?
        do {
            rebuilt = try JXLSession.with(bytes) { session throws(ImageDecodingError) in
                // A recompressed JPEG's own size, about, for the buffer's first try.
                let likely = bytes.count + bytes.count / 2 + (64 << 10)
                return try session.reconstructedJPEG(
                    width: width, height: height, likely: likely, limit: jpegLimit(bytes.count, request), request: request)
            }
        } catch .cancelled {
            throw .cancelled
        } catch {
            return nil
        }
        guard let jpeg = rebuilt else { return nil }
        guard let probe = ImageProbe.read(jpeg), probe.format == .jpeg,
            probe.storedSize == ImageDimensions(width: width, height: height)
        else { return nil }
        // libjxl keeps the JPEG's EXIF orientation in the codestream too: the JPEG XL's is the one shown.
        let jpegHeader = ImageHeader(format: .jpeg, storedWidth: width, storedHeight: height, orientation: header.orientation)
        // The rebuilt JPEG is in memory: the file's mapping has nothing more to release as it is read.
        var jpegRequest = request
        jpegRequest.mappedInput = nil
        do {
            var image = try JPEGDecoder().decode(jpeg, header: jpegHeader, request: jpegRequest)
            guard image.warning == nil else { return nil }
            image.header = header
            if image.colorProfile == nil { image.colorProfile = ColorProfileLocator.profile(in: jpeg, format: .jpeg) }
            return image
        } catch .cancelled {
            throw .cancelled
        } catch {
            return nil
        }
    }

    /// The most bytes a rebuilt JPEG may take: a recompressed JPEG is a fifth or so smaller than
    /// its JPEG, so four times the file and a megabyte for its metadata is ample for an honest
    /// one, and a file whose reconstruction data asks for more is decoded as pixels instead.
    static func jpegLimit(_ fileBytes: Int, _ request: DecodeRequest) -> Int {
        let (scaled, overflow) = fileBytes.multipliedReportingOverflow(by: 4)
        return min(request.maxDecodeBytes, overflow ? Int.max : scaled + (1 << 20))
    }
}

extension JXLSession {
    /// The JPEG bitstream the file was recompressed from, in a buffer of `likely` bytes at first,
    /// doubled as needed up to `limit`; nil when the file
    /// holds no reconstruction data for a still of `width × height` (the frame comes first), it
    /// needs more than `limit`, or libjxl cannot rebuild it. libjxl renders no pixels meanwhile.
    func reconstructedJPEG(
        width: Int, height: Int, likely: Int, limit: Int, request: DecodeRequest
    ) throws(ImageDecodingError) -> Data? {
        try subscribe([JXL_DEC_BASIC_INFO, JXL_DEC_JPEG_RECONSTRUCTION, JXL_DEC_FRAME, JXL_DEC_FULL_IMAGE])
        _ = jxl.JxlDecoderSetKeepOrientation(decoder, 1)
        var buffer: UnsafeMutableRawBufferPointer?
        defer { buffer?.deallocate() }
        while true {
            if request.cancellation.isCancelled { throw .cancelled }
            switch jxl.JxlDecoderProcessInput(decoder) {
            case JXL_DEC_BASIC_INFO:
                var info = JxlBasicInfo()
                guard jxl.JxlDecoderGetBasicInfo(decoder, &info) == JXL_DEC_SUCCESS, Int(info.xsize) == width,
                    Int(info.ysize) == height, info.have_animation == 0
                else { return nil }
                // Admitted as the pixel decode would be, so no file is let in that was refused before.
                let channels = info.alpha_bits == 0 ? 3 : 4
                guard request.allowsDecodeBytes(JXLDecoder.decodeBytes(width: width, height: height, channels: channels)) else {
                    return nil
                }
            case JXL_DEC_JPEG_RECONSTRUCTION:
                guard buffer == nil, limit > 0 else { return nil }
                let first = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, min(limit, likely)), alignment: 1)
                buffer = first
                guard offer(first, from: 0) else { return nil }
            case JXL_DEC_JPEG_NEED_MORE_OUTPUT:
                guard let old = buffer, old.count < limit else { return nil }
                let written = old.count - jxl.JxlDecoderReleaseJPEGBuffer(decoder)
                let grown = UnsafeMutableRawBufferPointer.allocate(byteCount: min(limit, 2 * old.count), alignment: 1)
                grown.copyMemory(from: UnsafeRawBufferPointer(rebasing: old[0..<written]))
                old.deallocate()
                buffer = grown
                // libjxl counts what is left unwritten of the part handed to it, which ends where the buffer does.
                guard offer(grown, from: written) else { return nil }
            case JXL_DEC_FRAME:
                // Reconstruction data comes before the frame, or not at all.
                guard buffer != nil else { return nil }
            case JXL_DEC_FULL_IMAGE:
                guard let buffer else { return nil }
                let written = buffer.count - jxl.JxlDecoderReleaseJPEGBuffer(decoder)
                guard written > 0 else { return nil }
                return Data(UnsafeRawBufferPointer(rebasing: buffer[0..<written]))
            default:
                // Cut data, damage, or an image out buffer asked for: the pixel decode says what is wrong.
                return nil
            }
        }
    }

    /// Hands libjxl the part of `buffer` from `offset` on to write the JPEG into.
    private func offer(_ buffer: UnsafeMutableRawBufferPointer, from offset: Int) -> Bool {
        let start = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self) + offset
        return jxl.JxlDecoderSetJPEGBuffer(decoder, start, buffer.count - offset) == JXL_DEC_SUCCESS
    }
}
