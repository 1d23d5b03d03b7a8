import ImgviewImaging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A PNG decoded while its bytes arrive: a plain image shows its rows as they come, an
/// interlaced one its picture after each Adam7 pass, finer each time.
///
/// libspng cannot take more bytes once it has run out, so each update decodes the bytes so far
/// from the start; the pipeline's throttle keeps that within what the download is worth.
final class PNGStreamDecoder: ProgressiveImageDecoder {
    private let sizing: ProgressiveSizing
    private var rowsShown = 0
    private var passesShown = 0

    init(sizing: @escaping ProgressiveSizing) {
        self.sizing = sizing
    }

    func update(with prefix: Data) throws(ImageDecodingError) -> DecodedImage? {
        let decoder = PNGDecoder()
        let header: ImageHeader
        do {
            header = try decoder.inspect(prefix)
        } catch .truncated {
            return nil
        }
        let request = sizing(header)
        var decoded: PNGDecoder.DecodedRows<PassCanvas>
        do {
            decoded = try decoder.decodeRows(prefix, header: header, request: request) { width, height, minimum, _ in
                PassCanvas(sourceWidth: width, sourceHeight: height, covering: minimum)
            }
        } catch .truncated {
            return nil
        }
        if decoded.isInterlaced {
            guard decoded.completePasses > passesShown else { return nil }
            passesShown = decoded.completePasses
        } else {
            guard decoded.rows > rowsShown else { return nil }
            rowsShown = decoded.rows
        }
        return DecodedImage(header: header, pixels: header.orientation.apply(to: decoded.sink.finish()))
    }
}
