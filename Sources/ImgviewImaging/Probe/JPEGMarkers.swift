/// The one walk over a JPEG's markers: segments from SOI, through each scan's entropy-coded data,
/// to EOI. The probe reads the frame size, EXIF and ICC segments and the end from it in one pass;
/// the DC decoder decodes its scans from it.
///
/// Stray bytes between segments are skipped to the next marker (libjpeg warns and carries on), fill
/// bytes (extra 0xFF) are skipped, and APPn segments are stepped over whole, so a thumbnail's own
/// EOI inside EXIF never ends the walk.
public enum JPEGMarkers {
    /// A marker segment: its marker byte and where its payload (after the length) lies.
    public struct Segment: Sendable, Equatable {
        public var marker: UInt8
        /// The offset of the segment's 0xFF.
        public var start: Int
        /// After the two length bytes, to the end of the segment.
        public var payload: Range<Int>

        /// Start of frame: SOF0–SOF15 but DHT (C4), JPG (C8) and DAC (CC), which share the range.
        public var isFrameHeader: Bool {
            (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker)
        }
    }

    /// What a visitor wants after a segment.
    public enum Step: Sendable, Equatable {
        /// Go on; after a scan header (SOS), through its entropy-coded data to the next marker.
        case next
        /// Go on from `offset` (a visitor that read a scan's data itself says where it stopped).
        case resume(at: Int)
        /// Stop here.
        case stop
    }

    /// Where a walk ended.
    public enum End: Sendable, Equatable {
        /// At EOI, whose 0xFF is at `offset`.
        case endOfImage(at: Int)
        /// The bytes ended first, inside a segment or a scan's data.
        case cut
        /// The visitor stopped it.
        case stopped
        /// It does not start with SOI.
        case notJPEG
    }

    /// Walks the segments of the JPEG in `bytes`, handing each to `visit`. With `handingOnACutSegment`,
    /// a segment that goes on past the bytes is handed on too, its payload cut where they end, before
    /// the walk ends as `.cut` (for a reader of the first bytes that wants a segment it may get whole
    /// later, as the EXIF reader does).
    ///
    /// A walk goes on from `resuming`, when given, instead of the start: the offset of a marker an
    /// earlier walk over fewer of the same bytes had not read whole (a reader of a download that
    /// walks on as its bytes arrive).
    @discardableResult
    public static func walk(
        _ bytes: some ByteReader, resuming: Int? = nil, handingOnACutSegment: Bool = false, visit: (Segment) -> Step
    ) -> End {
        if resuming == nil { guard bytes.byte(at: 0) == 0xFF, bytes.byte(at: 1) == 0xD8 else { return .notJPEG } }
        var position = resuming ?? 2
        while true {
            guard let first = bytes.byte(at: position) else { return .cut }
            guard first == 0xFF else {
                guard let next = bytes.firstIndex(of: 0xFF, from: position) else { return .cut }
                position = next
                continue
            }
            let start = position
            var markerAt = position + 1
            while bytes.byte(at: markerAt) == 0xFF { markerAt += 1 }
            guard let marker = bytes.byte(at: markerAt) else { return .cut }
            position = markerAt + 1
            switch marker {
            case 0xD9:
                return .endOfImage(at: start)
            case 0x01, 0xD0...0xD8:
                continue  // no length: TEM, RSTn, SOI
            default:
                guard let length = bytes.bigEndian16(at: position), length >= 2 else { return .cut }
                let end = position + length
                guard end <= bytes.count else {
                    if handingOnACutSegment, visit(Segment(marker: marker, start: start, payload: (position + 2)..<bytes.count)) == .stop {
                        return .stopped
                    }
                    return .cut
                }
                let segment = Segment(marker: marker, start: start, payload: (position + 2)..<end)
                switch visit(segment) {
                case .stop:
                    return .stopped
                case .resume(let offset):
                    position = max(offset, end)
                case .next:
                    position = end
                    if marker == 0xDA {
                        guard let next = nextMarker(afterScanDataAt: end, in: bytes) else { return .cut }
                        position = next
                    }
                }
            }
        }
    }

    /// The offset of the 0xFF that starts the first marker after entropy-coded data from `start`:
    /// a 0xFF followed by neither 0x00 (a stuffed byte) nor a restart marker (nor more 0xFF).
    public static func nextMarker(afterScanDataAt start: Int, in bytes: some ByteReader) -> Int? {
        var position = start
        while let found = bytes.firstIndex(of: 0xFF, from: position) {
            var after = found + 1
            while bytes.byte(at: after) == 0xFF { after += 1 }
            guard let next = bytes.byte(at: after) else { return nil }
            if next == 0x00 || (0xD0...0xD7).contains(next) {
                position = after + 1
            } else {
                return after - 1
            }
        }
        return nil
    }
}
