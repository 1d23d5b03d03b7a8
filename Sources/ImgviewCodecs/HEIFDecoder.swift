internal import CDe265
internal import CHEIF
import ImgviewImaging
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Decodes HEIC and other HEIF stills with libheif (HEVC through libde265), opened on first use.
///
/// libheif 1.15 cannot decode at a reduced size, so the speed of a preview comes from the
/// thumbnail a camera or phone embeds: the smallest one that covers the size asked for (and has
/// the picture's shape) is decoded instead of the primary image. Otherwise the image is decoded
/// whole, 8 bits a sample, and its rows go straight into a `RowDownscaler`. libheif applies
/// `irot` and `imir` itself, so the pixels come upright. The top-level images of a collection are
/// pages, the primary one first. libheif 1.15 cannot play image sequences: a file with one shows
/// its still image and says so. The profile (`colr`: ICC, or nclx code points) is handed on as
/// `colorProfile`.
public struct HEIFDecoder: ImageDecoding {
    public init() {}

    /// The probe's size and orientation (`ispe`, `irot`), and the pages only libheif can count
    /// (top-level images: not thumbnails, alpha planes or grid tiles).
    public func inspect(_ bytes: Data, probe: ImageProbe) throws(ImageDecodingError) -> ImageHeader {
        let library: ImageHeader
        do {
            library = try HEIFSession.with(bytes) { session throws(ImageDecodingError) in try session.header(page: 0) }
        } catch {
            // libheif refuses a side past its own limit; the header still says what it is, and
            // `decode` refuses it with its numbers like any other image too large.
            guard case .corrupt = error, let header = ImageHeader(probe: probe),
                max(header.storedWidth, header.storedHeight) > Int(HEIFSession.maximumSide)
            else { throw error }
            return header
        }
        guard var header = ImageHeader(probe: probe) else { return library }
        header.pageCount = library.pageCount
        return header
    }

    public func decode(_ bytes: Data, header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        if request.cancellation.isCancelled { throw .cancelled }
        let (width, height) = header.uprightSize
        // The header may be the probe's `ispe`, 32 bits a side.
        try request.admit(width: width, height: height)
        let meta = try Self.metaBox(bytes)
        let planes = Self.planarChroma(meta)
        let needed = Self.decodeBytes(width: width, height: height, meta: meta, planar: planes != nil)
        guard request.allowsDecodeBytes(needed) else {
            throw .tooLargeToDecode(what: "a HEIC", width: width, height: height, bytes: needed, limit: request.maxDecodeBytes)
        }
        if let meta { try Self.refuseWhatLibheifWouldMisuse(meta: meta, file: bytes, request: request) }
        var image = try HEIFSession.with(bytes) { session throws(ImageDecodingError) in
            try session.decode(request: request, planarChroma: planes)
        }
        if request.page == 0 {
            // The probe's size is what the limits were checked against: data larger than it is a lie.
            guard image.pixels.width <= width, image.pixels.height <= height else {
                throw .corrupt(
                    .heic, detail: "an image of \(image.pixels.width)×\(image.pixels.height) where its header says \(width)×\(height)")
            }
            image.header = header
        }
        if request.cancellation.isCancelled { throw .cancelled }
        if Self.holdsASequence(bytes) {
            let note = "HEIF image sequence: showing its still image (libheif 1.15 cannot play sequences)"
            image.warning = image.warning.map { note + "; " + $0 } ?? note
        }
        return image
    }

    /// Refuses a file on which libheif 1.15 and libde265 would go wrong, before they see it: they
    /// trust what the file declares where imgview's limits were checked against its `ispe`.
    static func refuseWhatLibheifWouldMisuse(meta: [UInt8], file: Data, request: DecodeRequest) throws(ImageDecodingError) {
        // libde265 allocates the picture the HEVC stream declares, whatever the container says.
        if let problem = ISOMediaHeader.codedSizeProblem(meta: meta, maxPixelCount: request.maxPixelCount) {
            throw refusal(problem, what: "an HEVC stream", relation: "in", limit: request.maxPixelCount)
        }
        switch ISOMediaHeader.decodingLoad(meta: meta) {
        case .cycle: throw .corrupt(.heic, detail: "an image made from itself")
        case .tooDeep: throw .corrupt(.heic, detail: "images derived more than \(ISOMediaHeader.maxDerivationDepth) deep")
        case .tooManyDecodes: throw .corrupt(.heic, detail: "more than \(ISOMediaHeader.maxDecodesPerImage) decodes for one image")
        case .bounded: break
        }
        // libheif makes the canvas a grid or overlay declares, whatever its `ispe` says.
        if let problem = ISOMediaHeader.derivedCanvasProblem(meta: meta, file: DataBytes(file), maxPixelCount: request.maxPixelCount) {
            throw refusal(problem, what: "a canvas", relation: "for", limit: request.maxPixelCount)
        }
    }

    /// "an HEVC stream of 320×216 in an image of 100×100", or past the limit when the item
    /// declares no size: said of what libheif would allocate, the header's own size having passed.
    private static func refusal(
        _ problem: ISOMediaHeader.CodedSizeProblem, what: String, relation: String, limit: Int
    ) -> ImageDecodingError {
        let size = "\(what) of \(problem.codedWidth)×\(problem.codedHeight)"
        guard let declared = problem.declared else { return .corrupt(.heic, detail: "\(size), past the limit of \(limit) pixels") }
        return .corrupt(.heic, detail: "\(size) \(relation) an image of \(declared.width)×\(declared.height)")
    }

    /// The top-level `meta` box, whole; nil when the file has none (libheif then refuses it).
    /// A `meta` box the checks cannot read is refused here: libheif would still decode it.
    static func metaBox(_ bytes: Data) throws(ImageDecodingError) -> [UInt8]? {
        let file = DataBytes(bytes)
        let topLevel = ISOMediaHeader.boxes(in: file, 0..<file.count)
        guard let meta = topLevel.first(where: { $0.type == "meta" }) else {
            if topLevel.count >= ISOMediaHeader.maxBoxes { throw .corrupt(.heic, detail: "more boxes than libheif reads") }
            return nil
        }
        // As far as the probe reads a `meta` box.
        guard meta.declaredEnd - meta.start <= ImageProbe.maxMetaBytes else {
            throw .corrupt(.heic, detail: "a meta box of \(meta.declaredEnd - meta.start) bytes")
        }
        return file.bytes(at: meta.start, count: min(meta.declaredEnd, file.count) - meta.start)
    }

    /// What libheif and libde265 hold at the peak of decoding a `width × height` image (DECISIONS.md,
    /// "glibc's sliding mmap threshold; HEIC and JPEG XL counted against maxDecodeBytes"): libde265's
    /// picture of the largest stream (a whole image, or one grid tile) with its per-block data,
    /// beside libheif's copy of the image's planes; on the RGB path (`planar` false), the
    /// copies of every stream's planes (colour, and alpha or depth), the RGB or RGBA image and the
    /// converter's own plane. In quarters of a byte per pixel: a plane of 8-bit samples is 4.
    static func decodeBytes(width: Int, height: Int, meta: [UInt8]?, planar: Bool) -> Int {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= Int.max / 64 else { return .max }
        let formats = meta.map { ISOMediaHeader.codedSampleFormats(meta: $0) } ?? []
        let quarters = formats.map(Self.planeQuarters)
        let largest = quarters.max() ?? 6  // 8-bit 4:2:0 when no configuration reads
        let coded = meta.flatMap { ISOMediaHeader.largestCodedPicture(meta: $0) }.map { min(pixels, $0.width * $0.height) } ?? pixels
        let stream = (largest + perBlockQuarters) * coded
        if planar { return (largest * pixels + stream) / 4 }
        // A monochrome stream beside a colour one is an alpha (or depth) plane: RGBA out.
        let auxiliary = formats.count > 1 && formats.contains { $0.chroma == 0 }
        let held = max(largest, quarters.reduce(0, +))
        let conversion = 4 * (auxiliary ? 4 : 3) + conversionQuarters
        return (held * pixels + max(stream, conversion * pixels)) / 4
    }

    /// The plane libheif's colour conversion holds beside its output, in quarters of a byte per
    /// pixel, fitted to what decodes to RGB and RGBA held (same entry).
    static let conversionQuarters = 5

    /// libde265's per-block data (prediction, transform and deblocking records), in quarters of a
    /// byte per pixel: what a decode holds past two copies of its planes (same entry).
    static let perBlockQuarters = 5

    /// A picture's planes in quarters of a byte per pixel: luma 4, chroma as subsampled, doubled past 8 bits.
    private static func planeQuarters(_ format: HEVCSampleFormat) -> Int {
        let chroma =
            switch format.chroma {
            case 0: 0
            case 1: 2
            case 2: 4
            default: 8
            }
        return (4 + chroma) * (max(format.lumaBits, format.chromaBits) > 8 ? 2 : 1)
    }

    /// The chroma layout to ask libheif for when every HEVC stream in the file is 8-bit colour
    /// of one layout (a phone's photo, its thumbnail and grid tiles), so its planes can be read
    /// as decoded; nil otherwise (alpha and depth planes, deeper samples), and the image is
    /// converted to RGB by libheif.
    static func planarChroma(_ meta: [UInt8]?) -> heif_chroma? {
        guard let meta else { return nil }
        let formats = ISOMediaHeader.codedSampleFormats(meta: meta)
        guard formats.count == 1, let format = formats.first, format.lumaBits == 8, format.chromaBits == 8 else { return nil }
        switch format.chroma {
        case 1: return heif_chroma_420
        case 2: return heif_chroma_422
        case 3: return heif_chroma_444
        default: return nil
        }
    }

    /// Whether a `moov` box (a track of frames) sits beside the still images.
    static func holdsASequence(_ bytes: Data) -> Bool {
        let head = [UInt8](bytes.prefix(64 << 10))
        return ISOMediaHeader.boxes(in: head, 0..<head.count).contains { $0.type == "moov" }
    }
}

/// One libheif context over a buffer, read, alive only inside `with`.
final class HEIFSession {
    private let heif: imgview_heif
    private let context: OpaquePointer
    private let bytes: Data

    /// The most pixels a side may have before libheif refuses the file (its own default).
    static let maximumSide: Int32 = 32768

    static func with<T>(_ bytes: Data, _ body: (HEIFSession) throws(ImageDecodingError) -> T) throws(ImageDecodingError) -> T {
        let heif = try HEIFLibrary.functions()
        let result: Result<T, ImageDecodingError> = bytes.withUnsafeBytes { raw in
            guard let context = heif.heif_context_alloc() else { return .failure(.corrupt(.heic, detail: "libheif could not start")) }
            defer { heif.heif_context_free(context) }
            // Grid tiles decode on the calling thread: the pipeline decodes several images at once already.
            heif.heif_context_set_max_decoding_threads(context, 0)
            heif.heif_context_set_maximum_image_size_limit(context, maximumSide)
            let session = HEIFSession(heif: heif, context: context, bytes: bytes)
            do throws(ImageDecodingError) {
                // libheif reads from the buffer only while the context lives, inside this closure.
                try session.check(heif.heif_context_read_from_memory_without_copy(context, raw.baseAddress, raw.count, nil))
                return .success(try body(session))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private init(heif: imgview_heif, context: OpaquePointer, bytes: Data) {
        self.heif = heif
        self.context = context
        self.bytes = bytes
    }

    /// The top-level images: the primary first, then the others in the file's order.
    private func pages() -> [heif_item_id] {
        let count = Int(heif.heif_context_get_number_of_top_level_images(context))
        var ids = [heif_item_id](repeating: 0, count: max(0, min(count, 4096)))
        let listed = ids.isEmpty ? 0 : Int(heif.heif_context_get_list_of_top_level_image_IDs(context, &ids, Int32(ids.count)))
        var primary: heif_item_id = 0
        guard heif.heif_context_get_primary_image_ID(context, &primary).code == heif_error_Ok else { return Array(ids.prefix(listed)) }
        return [primary] + ids.prefix(listed).filter { $0 != primary }
    }

    /// The handle of page `number` (the last when there are fewer); release it when done.
    private func handle(page number: Int) throws(ImageDecodingError) -> (handle: OpaquePointer, index: Int, count: Int) {
        let ids = pages()
        guard !ids.isEmpty else { throw .corrupt(.heic, detail: "no image in the file") }
        let index = min(number, ids.count - 1)
        var handle: OpaquePointer?
        try check(heif.heif_context_get_image_handle(context, ids[index], &handle))
        guard let handle else { throw .corrupt(.heic, detail: "no image in the file") }
        return (handle, index, ids.count)
    }

    /// The page's size, upright (libheif has applied `irot` and `imir`).
    func header(page: Int) throws(ImageDecodingError) -> ImageHeader {
        let (handle, _, count) = try handle(page: page)
        defer { heif.heif_image_handle_release(handle) }
        let (width, height) = (Int(heif.heif_image_handle_get_width(handle)), Int(heif.heif_image_handle_get_height(handle)))
        guard width > 0, height > 0 else { throw .corrupt(.heic, detail: "an image of \(width)×\(height) pixels") }
        return ImageHeader(format: .heic, storedWidth: width, storedHeight: height, orientation: .up, pageCount: count)
    }

    /// Decodes page `request.page` (or its thumbnail) and reduces it row by row. With
    /// `planarChroma`, the planes libheif decodes are read as they are and converted a row at a
    /// time (`YCbCrConversion`): libheif's own RGB copy would be a second image at full size.
    func decode(request: DecodeRequest, planarChroma: heif_chroma?) throws(ImageDecodingError) -> DecodedImage {
        let (handle, index, count) = try handle(page: request.page)
        defer { heif.heif_image_handle_release(handle) }
        let (width, height) = (Int(heif.heif_image_handle_get_width(handle)), Int(heif.heif_image_handle_get_height(handle)))
        guard width > 0, height > 0 else { throw .corrupt(.heic, detail: "an image of \(width)×\(height) pixels") }
        try request.admit(width: width, height: height)
        let header = ImageHeader(format: .heic, storedWidth: width, storedHeight: height, orientation: .up, pageCount: count)
        let thumbnail = thumbnail(of: handle, width: width, height: height, covering: request.minimumSize)
        defer { if let thumbnail { heif.heif_image_handle_release(thumbnail) } }
        let source = thumbnail ?? handle
        let hasAlpha = heif.heif_image_handle_has_alpha_channel(source) != 0
        let conversion = hasAlpha || planarChroma == nil ? nil : ycbcrConversion(source)

        // libde265 runs on this thread (`CDe265`): the limit covers a parameter set in the data too.
        imgview_de265_set_limit(UInt64(request.maxPixelCount))
        guard let options = heif.heif_decoding_options_alloc() else { throw .corrupt(.heic, detail: "libheif could not start") }
        defer { heif.heif_decoding_options_free(options) }
        options.pointee.convert_hdr_to_8bit = 1
        var decoded: OpaquePointer?
        if let conversion, let planarChroma {
            try check(heif.heif_decode_image(source, &decoded, heif_colorspace_YCbCr, planarChroma, options))
            guard let decoded else { throw .corrupt(.heic, detail: "no pixels decoded") }
            defer { heif.heif_image_release(decoded) }
            if request.cancellation.isCancelled { throw .cancelled }
            try requireSize(of: decoded, channel: heif_channel_Y, as: source)
            let pixels = try reduce(planes: decoded, conversion: conversion, request: request)
            var image = DecodedImage(header: header, pixels: pixels, warning: warnings(decoded), colorProfile: profile(handle))
            image.page = index
            return image
        }
        let chroma = hasAlpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB
        try check(heif.heif_decode_image(source, &decoded, heif_colorspace_RGB, chroma, options))
        guard let decoded else { throw .corrupt(.heic, detail: "no pixels decoded") }
        defer { heif.heif_image_release(decoded) }
        if request.cancellation.isCancelled { throw .cancelled }
        try requireSize(of: decoded, channel: heif_channel_interleaved, as: source)

        // The size the HEVC stream had, which libheif does not compare with the header's: buffers follow it.
        let decodedWidth = Int(heif.heif_image_get_width(decoded, heif_channel_interleaved))
        let decodedHeight = Int(heif.heif_image_get_height(decoded, heif_channel_interleaved))
        var stride: Int32 = 0
        guard decodedWidth > 0, decodedHeight > 0,
            let plane = heif.heif_image_get_plane_readonly(decoded, heif_channel_interleaved, &stride)
        else { throw .corrupt(.heic, detail: "no pixels decoded") }
        // Twice the size asked for, as for the other formats that are reduced after decoding
        // (`PixelReducer`), where that fits beside libheif's image.
        let factor = PixelReducer.factor(
            width: decodedWidth, height: decodedHeight, covering: request.minimumSize, atLeast: request.smallestSize,
            beside: Int(stride) * decodedHeight,
            within: request.maxDecodeBytes)
        var scaler = RowDownscaler(sourceWidth: decodedWidth, sourceHeight: decodedHeight, factor: factor, order: .inOrder)
        let channels = hasAlpha ? 4 : 3
        var row = [UInt8](repeating: 255, count: decodedWidth * 4)
        row.withUnsafeMutableBufferPointer { row in
            for y in 0..<decodedHeight {
                let line = plane + y * Int(stride)
                if hasAlpha {
                    row.baseAddress!.update(from: line, count: decodedWidth * 4)
                } else {
                    for x in 0..<decodedWidth {
                        (row[x * 4], row[x * 4 + 1], row[x * 4 + 2]) = (line[x * channels], line[x * channels + 1], line[x * channels + 2])
                    }
                }
                scaler.add(row: y, pixels: UnsafeBufferPointer(row))
            }
        }
        var image = DecodedImage(header: header, pixels: scaler.finish(), warning: warnings(decoded), colorProfile: profile(handle))
        image.page = index
        return image
    }

    /// Refuses pixels of another size than the image (or thumbnail) says it has: libheif takes a
    /// derived image's size from data the checks before decoding may read differently, and an
    /// image smaller or larger than its header would break what the limits and the preview assume.
    private func requireSize(of decoded: OpaquePointer, channel: heif_channel, as handle: OpaquePointer) throws(ImageDecodingError) {
        let (width, height) = (Int(heif.heif_image_get_width(decoded, channel)), Int(heif.heif_image_get_height(decoded, channel)))
        let (declaredWidth, declaredHeight) = (
            Int(heif.heif_image_handle_get_width(handle)), Int(heif.heif_image_handle_get_height(handle))
        )
        guard width == declaredWidth, height == declaredHeight else {
            throw .corrupt(.heic, detail: "an image of \(width)×\(height) where its header says \(declaredWidth)×\(declaredHeight)")
        }
    }

    /// The conversion libheif would make of `handle`'s planes, from its nclx code points (BT.601
    /// in full range when it has none); nil for a matrix `YCbCrConversion` does not make.
    private func ycbcrConversion(_ handle: OpaquePointer) -> YCbCrConversion? {
        var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
        guard heif.heif_image_handle_get_nclx_color_profile(handle, &nclx).code == heif_error_Ok, let nclx else {
            return YCbCrConversion(matrix: 2, fullRange: true)
        }
        defer { heif.heif_nclx_color_profile_free(nclx) }
        return YCbCrConversion(matrix: Int(nclx.pointee.matrix_coefficients.rawValue), fullRange: nclx.pointee.full_range_flag != 0)
    }

    /// `decoded`'s 8-bit planes converted to RGBA a row at a time, straight into a `RowDownscaler`.
    private func reduce(
        planes decoded: OpaquePointer, conversion: YCbCrConversion, request: DecodeRequest
    ) throws(ImageDecodingError)
        -> PixelBuffer
    {
        let width = Int(heif.heif_image_get_width(decoded, heif_channel_Y))
        let height = Int(heif.heif_image_get_height(decoded, heif_channel_Y))
        let chromaWidth = Int(heif.heif_image_get_width(decoded, heif_channel_Cb))
        let chromaHeight = Int(heif.heif_image_get_height(decoded, heif_channel_Cb))
        var (lumaStride, blueStride, redStride): (Int32, Int32, Int32) = (0, 0, 0)
        guard width > 0, height > 0, chromaWidth > 0, chromaHeight > 0,
            Int(heif.heif_image_get_width(decoded, heif_channel_Cr)) == chromaWidth,
            Int(heif.heif_image_get_height(decoded, heif_channel_Cr)) == chromaHeight,
            let luma = heif.heif_image_get_plane_readonly(decoded, heif_channel_Y, &lumaStride),
            let blue = heif.heif_image_get_plane_readonly(decoded, heif_channel_Cb, &blueStride),
            let red = heif.heif_image_get_plane_readonly(decoded, heif_channel_Cr, &redStride)
        else { throw .corrupt(.heic, detail: "no pixels decoded") }
        // Half as many chroma samples across or down (4:2:0, 4:2:2), or as many (4:4:4).
        let shiftAcross = chromaWidth < width ? 1 : 0
        let shiftDown = chromaHeight < height ? 1 : 0
        guard (width - 1) >> shiftAcross < chromaWidth, (height - 1) >> shiftDown < chromaHeight else {
            throw .corrupt(.heic, detail: "chroma planes of \(chromaWidth)×\(chromaHeight) for an image of \(width)×\(height)")
        }
        // Twice the size asked for, as for the other formats that are reduced after decoding
        // (`PixelReducer`), where that fits beside libheif's planes.
        let planeBytes = Int(lumaStride) * height + (Int(blueStride) + Int(redStride)) * chromaHeight
        let factor = PixelReducer.factor(
            width: width, height: height, covering: request.minimumSize, atLeast: request.smallestSize, beside: planeBytes,
            within: request.maxDecodeBytes)
        if factor > 1 {
            // Averaged as planes, converted once a block: cheaper than converting and summing every pixel.
            return YCbCrPlaneReducer(
                luma: .init(base: luma, stride: Int(lumaStride), width: width, height: height),
                blue: .init(base: blue, stride: Int(blueStride), width: chromaWidth, height: chromaHeight),
                red: .init(base: red, stride: Int(redStride), width: chromaWidth, height: chromaHeight),
                shiftAcross: shiftAcross, shiftDown: shiftDown, conversion: conversion
            ).reduce(by: factor)
        }
        var scaler = RowDownscaler(sourceWidth: width, sourceHeight: height, factor: factor, order: .inOrder)
        var row = [UInt8](repeating: 255, count: width * 4)
        row.withUnsafeMutableBufferPointer { row in
            for y in 0..<height {
                let chromaRow = y >> shiftDown
                conversion.convert(
                    luma: luma + y * Int(lumaStride), blue: blue + chromaRow * Int(blueStride), red: red + chromaRow * Int(redStride),
                    width: width, chromaShift: shiftAcross, into: row)
                scaler.add(row: y, pixels: UnsafeBufferPointer(row))
            }
        }
        return scaler.finish()
    }

    /// The smallest embedded thumbnail that covers `minimum` and has the picture's shape.
    private func thumbnail(
        of handle: OpaquePointer, width: Int, height: Int, covering minimum: (width: Int, height: Int)?
    ) -> OpaquePointer? {
        guard let minimum else { return nil }
        let count = min(16, Int(heif.heif_image_handle_get_number_of_thumbnails(handle)))
        guard count > 0 else { return nil }
        var ids = [heif_item_id](repeating: 0, count: count)
        let listed = Int(heif.heif_image_handle_get_list_of_thumbnail_IDs(handle, &ids, Int32(count)))
        var best: (handle: OpaquePointer, pixels: Int)?
        for id in ids.prefix(listed) {
            var thumbnail: OpaquePointer?
            guard heif.heif_image_handle_get_thumbnail(handle, id, &thumbnail).code == heif_error_Ok, let thumbnail else { continue }
            let (thumbWidth, thumbHeight) = (
                Int(heif.heif_image_handle_get_width(thumbnail)), Int(heif.heif_image_handle_get_height(thumbnail))
            )
            // Within 1 %, or 2 pixels for a small one (encoders round its sides).
            let sameShape = abs(thumbWidth * height - thumbHeight * width) <= max(thumbHeight * width / 100, 2 * max(width, height))
            let covers = thumbWidth >= minimum.width && thumbHeight >= minimum.height && thumbWidth < width
            if thumbWidth > 0, thumbHeight > 0, sameShape, covers, thumbWidth * thumbHeight < (best?.pixels ?? .max) {
                if let best { heif.heif_image_handle_release(best.handle) }
                best = (thumbnail, thumbWidth * thumbHeight)
            } else {
                heif.heif_image_handle_release(thumbnail)
            }
        }
        return best?.handle
    }

    /// The colour space the image's `colr` property declares: an ICC profile, else nclx code points.
    private func profile(_ handle: OpaquePointer) -> EmbeddedColorProfile? {
        let type = heif.heif_image_handle_get_color_profile_type(handle)
        if type == heif_color_profile_type_prof || type == heif_color_profile_type_rICC {
            let size = heif.heif_image_handle_get_raw_color_profile_size(handle)
            guard size > 0, size <= 4 << 20 else { return nil }
            var profile = [UInt8](repeating: 0, count: size)
            guard heif.heif_image_handle_get_raw_color_profile(handle, &profile).code == heif_error_Ok else { return nil }
            return .icc(profile)
        }
        var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
        guard heif.heif_image_handle_get_nclx_color_profile(handle, &nclx).code == heif_error_Ok, let nclx else { return nil }
        defer { heif.heif_nclx_color_profile_free(nclx) }
        return .cicp(
            primaries: Int(nclx.pointee.color_primaries.rawValue), transfer: Int(nclx.pointee.transfer_characteristics.rawValue),
            matrix: Int(nclx.pointee.matrix_coefficients.rawValue), fullRange: nclx.pointee.full_range_flag != 0)
    }

    /// What libheif noticed while decoding but decoded anyway, as one warning.
    private func warnings(_ image: OpaquePointer) -> String? {
        var found = [heif_error](repeating: heif_error(), count: 1)
        guard heif.heif_image_get_decoding_warnings(image, 0, &found, 1) > 0 else { return nil }
        return "damaged HEIC (\(Self.text(found[0]))); showing what could be decoded"
    }

    fileprivate func check(_ error: heif_error) throws(ImageDecodingError) {
        guard error.code != heif_error_Ok else { return }
        if error.code == heif_error_Invalid_input, error.subcode == heif_suberror_End_of_data { throw .truncated(.heic) }
        // A file cut inside its boxes breaks whichever box comes first ("No 'ftyp' box", say).
        if ImageCompleteness.verdict(DataBytes(bytes), format: .heic) == .truncated { throw .truncated(.heic) }
        if error.subcode == heif_suberror_No_meta_box, HEIFDecoder.holdsASequence(bytes) {
            throw .corrupt(.heic, detail: "an image sequence without a still image (libheif 1.15 cannot play sequences)")
        }
        throw .corrupt(.heic, detail: Self.text(error))
    }

    /// libheif's message, which may end in a line break.
    private static func text(_ error: heif_error) -> String {
        let message = error.message.map { String(cString: $0) } ?? "libheif error \(error.code.rawValue)"
        return TerminalText.sanitized(message.trimmingWhitespace())
    }
}
