internal import CTIFF
import ImgviewImaging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Decodes TIFF with libtiff, opened on first use: every photometric, bit depth, compression,
/// strip and tile layout libtiff's RGBA interface reads, one page at a time.
///
/// The pages and their sizes come from `TIFFDirectories` (Swift), so `inspect` needs no libtiff.
/// Decoding reads the page in bands of whole strips or tiles (each decoded once) into a
/// `RowDownscaler`, so memory follows the preview, not the page; every allocation libtiff makes
/// is capped; its messages are captured, never printed. Strips that fail (a cut or damaged file)
/// leave their rows transparent, and the first message becomes the warning. An embedded ICC
/// profile is handed on as `colorProfile`.
public struct TIFFDecoder: ImageDecoding {
    public init() {}

    /// The most libtiff may allocate at once: a strip or tile decoded, a directory's arrays.
    static let maxAllocation = 64 << 20
    /// The most one band of RGBA rows handed to libtiff may take.
    static let bandBytes = 16 << 20

    /// The probe's first page, and how many pages the directory chain holds.
    public func inspect(_ bytes: Data, probe: ImageProbe) throws(ImageDecodingError) -> ImageHeader {
        let (directories, page) = try Self.page(0, of: bytes)
        var header =
            ImageHeader(probe: probe)
            ?? ImageHeader(format: .tiff, storedWidth: page.width, storedHeight: page.height, orientation: page.orientation)
        header.pageCount = directories.pages.count
        return header
    }

    public func decode(_ bytes: Data, header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        let (directories, page) = try Self.page(request.page, of: bytes)
        // A BigTIFF's sides take 63 bits each.
        try request.admit(width: page.width, height: page.height)
        if request.cancellation.isCancelled { throw .cancelled }
        let tiff = try TIFFLibrary.functions()
        let read: Result<TIFFPage, ImageDecodingError> = bytes.withUnsafeBytes { raw in
            var source = imgview_tiff_source()
            source.bytes = raw.bindMemory(to: UInt8.self).baseAddress
            source.size = UInt64(raw.count)
            return withUnsafePointer(to: tiff) { api in
                do throws(ImageDecodingError) {
                    return .success(try TIFFPage.read(api, &source, directory: page.index, request: request, isCut: directories.isCut))
                } catch {
                    return .failure(error)
                }
            }
        }
        let decoded = try read.get()
        var pageHeader = ImageHeader(
            format: .tiff, storedWidth: decoded.width, storedHeight: decoded.height, orientation: decoded.orientation,
            pageCount: directories.pages.count)
        let pixels = decoded.orientation.apply(to: decoded.pixels)
        if request.page == 0 {
            // The probe's size is what the limits were checked against: data larger than it is a lie.
            let (width, height) = header.uprightSize
            guard pixels.width <= width, pixels.height <= height else {
                throw .corrupt(.tiff, detail: "an image of \(pixels.width)×\(pixels.height) where its header says \(width)×\(height)")
            }
            pageHeader = header
        }
        var image = DecodedImage(header: pageHeader, pixels: pixels, warning: decoded.warning)
        image.colorProfile = decoded.profile.map { .icc($0) }
        image.page = directories.pages.firstIndex { $0.index == page.index } ?? 0
        return image
    }

    /// The directory of page `number` (the last when there are fewer), and every directory.
    private static func page(
        _ number: Int, of bytes: Data
    ) throws(ImageDecodingError) -> (directories: TIFFDirectories, page: TIFFDirectories.Directory) {
        guard let directories = TIFFDirectories.read(DataBytes(bytes)) else { throw bytes.count < 8 ? .truncated(.tiff) : .notAnImage }
        let pages = directories.pages
        guard let page = pages.isEmpty ? nil : pages[min(number, pages.count - 1)] else {
            throw directories.isCut ? .truncated(.tiff) : .corrupt(.tiff, detail: "no image directory")
        }
        guard page.width > 0, page.height > 0 else {
            throw .corrupt(.tiff, detail: "a page of \(page.width)×\(page.height) pixels")
        }
        return (directories, page)
    }
}

/// One page read through libtiff's RGBA interface, at the reduced scale.
private struct TIFFPage {
    var width: Int
    var height: Int
    var orientation: ImageOrientation
    /// Stored rows, reduced; not yet turned upright.
    var pixels: PixelBuffer
    var profile: [UInt8]?
    var warning: String?

    static func read(
        _ api: UnsafePointer<imgview_tiff>, _ source: UnsafeMutablePointer<imgview_tiff_source>, directory: Int, request: DecodeRequest,
        isCut: Bool
    ) throws(ImageDecodingError) -> TIFFPage {
        let tiff = api.pointee
        guard let tif = imgview_tiff_open(api, source, tmsize_t(TIFFDecoder.maxAllocation)) else {
            throw isCut ? .truncated(.tiff) : .corrupt(.tiff, detail: CText.string(&source.pointee.first_error))
        }
        defer { tiff.TIFFClose(tif) }
        guard tiff.TIFFSetDirectory(tif, UInt32(directory)) == 1 else {
            throw isCut
                ? .truncated(.tiff) : .corrupt(.tiff, detail: Self.firstError(source, otherwise: "page \(directory) cannot be read"))
        }
        var (width32, height32): (UInt32, UInt32) = (0, 0)
        var orientationValue: UInt16 = 1
        _ = imgview_tiff_get_u32(api, tif, UInt32(TIFFTAG_IMAGEWIDTH), &width32)
        _ = imgview_tiff_get_u32(api, tif, UInt32(TIFFTAG_IMAGELENGTH), &height32)
        _ = imgview_tiff_get_u16_defaulted(api, tif, UInt32(TIFFTAG_ORIENTATION), &orientationValue)
        let (width, height) = (Int(width32), Int(height32))
        // The page's own numbers, as libtiff read them, are the ones the buffers are sized by.
        guard width > 0, height > 0 else { throw .corrupt(.tiff, detail: "a page of \(width)×\(height) pixels") }
        guard request.admits(width: width, height: height), width <= TIFFDecoder.bandBytes / 4 else {
            throw .tooLarge(width: width, height: height, limit: request.maxPixelCount)
        }
        let orientation = ImageOrientation(rawValue: Int(orientationValue)) ?? .up

        var message = [CChar](repeating: 0, count: 1024)
        guard tiff.TIFFRGBAImageOK(tif, &message) == 1 else {
            throw .corrupt(.tiff, detail: CText.string(message))
        }
        var image = TIFFRGBAImage()
        guard tiff.TIFFRGBAImageBegin(&image, tif, 0, &message) == 1 else {
            throw .corrupt(.tiff, detail: CText.string(message))
        }
        defer { tiff.TIFFRGBAImageEnd(&image) }
        // libtiff turns nothing: the orientation is applied with the other formats' (`ImageOrientation`).
        image.req_orientation = image.orientation

        // A band is whole strips or tiles, so each is decoded once; a band smaller than a strip
        // would decode it again from its start for every band.
        var blockRows: UInt32 = 0
        if tiff.TIFFIsTiled(tif) != 0 {
            _ = imgview_tiff_get_u32(api, tif, UInt32(TIFFTAG_TILELENGTH), &blockRows)
        } else {
            _ = imgview_tiff_get_u32_defaulted(api, tif, UInt32(TIFFTAG_ROWSPERSTRIP), &blockRows)
        }
        let budgetRows = max(1, TIFFDecoder.bandBytes / (width * 4))
        let block = max(1, min(Int(blockRows), height))
        let band = block <= budgetRows ? block * max(1, budgetRows / block) : budgetRows
        let rowsPerBand = min(band, height)

        let minimum = request.minimumSize.map { orientation.swapsAxes ? ($0.height, $0.width) : ($0.width, $0.height) }
        var scaler = RowDownscaler(sourceWidth: width, sourceHeight: height, covering: minimum, order: .inOrder)
        var raster = [UInt32](repeating: 0, count: width * rowsPerBand)
        var row = [UInt8](repeating: 0, count: width * 4)
        var bandsRead = 0
        for top in stride(from: 0, to: height, by: rowsPerBand) {
            if request.cancellation.isCancelled { throw .cancelled }
            request.releaseReadInput()
            let rows = min(rowsPerBand, height - top)
            image.row_offset = Int32(top)
            image.col_offset = 0
            let errorsBefore = source.pointee.errors
            let status = raster.withUnsafeMutableBufferPointer {
                tiff.TIFFRGBAImageGet(&image, $0.baseAddress, UInt32(width), UInt32(rows))
            }
            if status == 1 { bandsRead += 1 }
            // A band that failed outright holds nothing worth showing: its rows stay transparent.
            guard status == 1 || source.pointee.errors == errorsBefore else { continue }
            raster.withUnsafeBufferPointer { raster in
                row.withUnsafeMutableBufferPointer { row in
                    for line in 0..<rows {
                        Self.straighten(raster, from: line * width, count: width, into: row)
                        scaler.add(row: top + line, pixels: UnsafeBufferPointer(row))
                    }
                }
            }
        }
        guard bandsRead > 0 else {
            throw isCut ? .truncated(.tiff) : .corrupt(.tiff, detail: Self.firstError(source, otherwise: "no row could be read"))
        }
        var profileLength: UInt32 = 0
        var profileBytes: UnsafeRawPointer?
        var profile: [UInt8]?
        if imgview_tiff_get_icc(api, tif, &profileLength, &profileBytes) == 1, let profileBytes, profileLength > 0 {
            profile = [UInt8](UnsafeRawBufferPointer(start: profileBytes, count: Int(profileLength)))
        }
        let warning =
            source.pointee.errors > 0
            ? "damaged or truncated TIFF (\(CText.string(&source.pointee.first_error))); showing what could be decoded" : nil
        return TIFFPage(width: width, height: height, orientation: orientation, pixels: scaler.finish(), profile: profile, warning: warning)
    }

    private static func firstError(_ source: UnsafeMutablePointer<imgview_tiff_source>, otherwise: String) -> String {
        let text = CText.string(&source.pointee.first_error)
        return text.isEmpty ? otherwise : text
    }

    /// One raster row (ABGR words, that is R, G, B, A bytes here, premultiplied) as straight RGBA.
    private static func straighten(
        _ raster: UnsafeBufferPointer<UInt32>, from start: Int, count: Int, into row: UnsafeMutableBufferPointer<UInt8>
    ) {
        for x in 0..<count {
            let word = raster[start + x]
            let alpha = Int(word >> 24)
            var (red, green, blue) = (Int(word & 0xFF), Int(word >> 8 & 0xFF), Int(word >> 16 & 0xFF))
            if alpha > 0, alpha < 255 {
                red = min(255, (red * 255 + alpha / 2) / alpha)
                green = min(255, (green * 255 + alpha / 2) / alpha)
                blue = min(255, (blue * 255 + alpha / 2) / alpha)
            }
            let at = x * 4
            (row[at], row[at + 1], row[at + 2], row[at + 3]) = (UInt8(red), UInt8(green), UInt8(blue), UInt8(alpha))
        }
    }
}
