internal import CJPEG
import ImgviewImaging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A JPEG decoded while its bytes arrive: a baseline file shows its rows as they come, a
/// progressive one its picture after each scan, sharper each time.
///
/// libjpeg reads from the bytes received so far and suspends when it needs more; the next
/// `update` hands them over again, longer, and it goes on where it stopped. A progressive file
/// that is large, or whose preview needs only 1/8 scale, is shown from its DC scans instead
/// (`JPEGDCDecoder`): libjpeg would hold every coefficient of the image meanwhile, and at 1/8
/// the AC scans change nothing anyway.
final class JPEGStreamDecoder: ProgressiveImageDecoder {
    /// Progressive files up to this many pixels are followed scan by scan through libjpeg
    /// (which holds 3 bytes of coefficients per pixel until the end); larger ones by their DC scans.
    static let scanByScanPixelLimit = 16_000_000

    private enum Stage {
        case header
        case starting
        case rows
        case scans
        case dcScans
        case done
    }

    private let session: JPEGSession
    private let sizing: ProgressiveSizing
    private var stage = Stage.header
    private var header: ImageHeader?
    private var request = DecodeRequest()
    /// How a CMYK file's ink becomes colours: whether it is stored inverted, and its profile.
    private var cmyk: (inverted: Bool, profile: EmbeddedColorProfile?)?
    private var isProgressive = false
    private var output: [UInt8] = []
    private var rowsShown = 0
    private var scansShown = 0
    /// How far the walk over the markers of what has arrived has come, for `countScanEnds`.
    private var markerWalk = MarkerWalk()

    init(sizing: @escaping ProgressiveSizing) throws(ImageDecodingError) {
        self.sizing = sizing
        session = try JPEGSession()
        session.readIncrementally()
    }

    func update(with prefix: Data) throws(ImageDecodingError) -> DecodedImage? {
        let result: Result<DecodedImage?, ImageDecodingError> = prefix.withUnsafeBytes { buffer in
            session.feed(buffer)
            do throws(ImageDecodingError) {
                return .success(try advance(prefix))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private func advance(_ prefix: Data) throws(ImageDecodingError) -> DecodedImage? {
        if stage == .header {
            guard let frame = try session.readHeaderIfArrived() else { return nil }
            let header = ImageHeader(
                format: .jpeg, storedWidth: frame.width, storedHeight: frame.height,
                orientation: ImageProbe.read(prefix)?.orientation ?? .up)
            request = sizing(header)
            try request.admit(width: frame.width, height: frame.height)
            self.header = header
            // The profile's APP2 segments come before the frame header, so they have arrived.
            if frame.isCMYK { cmyk = (frame.hasAdobeMarker, ColorProfileLocator.profile(in: prefix, format: .jpeg)) }
            isProgressive = frame.isProgressive
            let minimum = request.minimumSize.map { header.orientation.swapsAxes ? ($0.height, $0.width) : ($0.width, $0.height) }
            let eighths = JPEGDecoder.scaleInEighths(width: frame.width, height: frame.height, covering: minimum)
            if frame.isProgressive, !frame.isCMYK, eighths == 1 || frame.width * frame.height > Self.scanByScanPixelLimit {
                stage = .dcScans
            } else {
                session.configure(scaleInEighths: eighths, cmyk: frame.isCMYK, bufferedImage: frame.isProgressive)
                stage = .starting
            }
        }
        switch stage {
        case .dcScans:
            return try dcPicture(prefix)
        case .starting:
            guard try session.start() else { return nil }
            output = try session.makeOutput()
            stage = isProgressive ? .scans : .rows
            return try advance(prefix)
        case .rows:
            let outcome = try session.readRows(into: &output, cancellation: request.cancellation)
            if outcome == .failed { throw .corrupt(.jpeg, detail: "damaged data") }
            if outcome == .done { stage = .done }
            guard session.outputScanline > rowsShown else { return nil }
            rowsShown = session.outputScanline
            return picture()
        case .scans:
            return try nextScan()
        case .header, .done:
            return nil
        }
    }

    /// Takes in what arrived; when a scan is whole that was not shown yet, shows the picture so far.
    private func nextScan() throws(ImageDecodingError) -> DecodedImage? {
        var complete = scansShown
        var ended = false
        reading: while true {
            switch try session.consumeInput() {
            case JPEG_SUSPENDED:
                break reading
            case JPEG_REACHED_SOS:
                complete = max(complete, session.inputScanNumber - 1)
            case JPEG_REACHED_EOI:
                complete = session.inputScanNumber
                ended = true
                break reading
            default:
                continue
            }
        }
        guard complete > scansShown else { return nil }
        guard try session.startOutput(scan: complete) else { return nil }
        let outcome = try session.readRows(into: &output, cancellation: request.cancellation)
        guard outcome == .done, try session.finishOutput() else { return nil }
        scansShown = complete
        if ended { stage = .done }
        return picture()
    }

    /// The DC picture of what has arrived, once another DC scan is whole.
    private func dcPicture(_ prefix: Data) throws(ImageDecodingError) -> DecodedImage? {
        // A scan's data ends at the next marker: until one has arrived no scan can have become
        // whole, and there is nothing new to decode.
        let endedBefore = markerWalk.scansEnded
        guard countScanEnds(in: prefix) > endedBefore else { return nil }
        guard let header, let decoded = try JPEGDCDecoder.decode(prefix, cancellation: request.cancellation),
            decoded.completeScans > scansShown
        else { return nil }
        scansShown = decoded.completeScans
        return DecodedImage(header: header, pixels: header.orientation.apply(to: decoded.pixels))
    }

    /// How many scans have ended in `prefix` (their data followed by a marker), walking on with
    /// `JPEGMarkers` from where the last count stopped.
    private func countScanEnds(in prefix: Data) -> Int {
        let bytes = DataBytes(prefix)
        while true {
            if let dataStart = markerWalk.scanDataStart {
                guard let marker = JPEGMarkers.nextMarker(afterScanDataAt: dataStart, in: bytes) else {
                    // Not to the last byte: it may be a 0xFF whose next byte has not arrived.
                    markerWalk.scanDataStart = max(dataStart, bytes.count - 1)
                    return markerWalk.scansEnded
                }
                markerWalk.scansEnded += 1
                markerWalk.scanDataStart = nil
                markerWalk.position = marker
            }
            var reachedScan = false
            JPEGMarkers.walk(bytes, resuming: markerWalk.position) { segment in
                markerWalk.position = segment.payload.upperBound
                reachedScan = segment.marker == 0xDA
                return reachedScan ? .stop : .next
            }
            guard reachedScan else { return markerWalk.scansEnded }
            markerWalk.scanDataStart = markerWalk.position
        }
    }

    /// Where `countScanEnds` goes on from: the next marker to read, or, inside a scan, where to
    /// look on for the marker that ends its data.
    private struct MarkerWalk {
        /// After SOI, at first.
        var position = 2
        var scanDataStart: Int?
        var scansEnded = 0
    }

    private func picture() -> DecodedImage? {
        guard let header else { return nil }
        var pixels = session.pixels(output)
        guard let cmyk else { return DecodedImage(header: header, pixels: header.orientation.apply(to: pixels)) }
        let warning = ColorManagement.convertCMYK(&pixels, inverted: cmyk.inverted, profile: cmyk.profile)
        return DecodedImage(header: header, pixels: header.orientation.apply(to: pixels), warning: warning, colorProfile: .sRGB)
    }
}
