import ImgviewSupport

/// What a photographer looks for in a photo's EXIF, as `info` shows it: the camera and lens, when
/// it was taken, the exposure, the focal length, the ISO and whether it says where.
///
/// Read from the same places as `ExifDate` (`ExifBlock`: a JPEG's APP1 `Exif`, a PNG's `eXIf`, a
/// TIFF's own directories, a HEIF's `Exif` item, a WebP's `EXIF` chunk, a JPEG XL's `Exif` box);
/// every offset is checked against the bytes, and text is sanitised by the caller.
public struct ExifCamera: Sendable, Equatable {
    public var make: String?
    public var model: String?
    public var lens: String?
    public var taken: ExifDateTime?
    /// Seconds, as a fraction: (1, 250) is 1/250 s.
    public var exposure: (numerator: Int, denominator: Int)?
    public var fNumber: Double?
    /// Millimetres.
    public var focalLength: Double?
    public var iso: Int?
    /// Whether a GPS directory is there (the place itself is not shown).
    public var hasLocation = false

    public static func == (lhs: ExifCamera, rhs: ExifCamera) -> Bool {
        lhs.make == rhs.make && lhs.model == rhs.model && lhs.lens == rhs.lens && lhs.taken == rhs.taken
            && lhs.exposure?.numerator == rhs.exposure?.numerator && lhs.exposure?.denominator == rhs.exposure?.denominator
            && lhs.fNumber == rhs.fNumber && lhs.focalLength == rhs.focalLength && lhs.iso == rhs.iso && lhs.hasLocation == rhs.hasLocation
    }

    /// The camera fields of `bytes`, wherever the format keeps its EXIF (`ExifBlock`: JPEG, PNG,
    /// TIFF, HEIC, AVIF, WebP, JPEG XL); nil when it has no EXIF, or none of them.
    public static func read(_ bytes: some ByteReader) -> ExifCamera? {
        let camera: ExifCamera? =
            switch ExifBlock.locate(in: bytes) {
            case .inPlace(let range): read(bytes, range: range)
            case .copied(let block): read(ArrayBytes(block), range: 0..<block.count)
            case nil: nil
            }
        guard let camera, camera != ExifCamera() else { return nil }
        return camera
    }

    /// "Canon EOS 5D Mark IV" (the model alone when it already names the make).
    public var cameraText: String? {
        guard let model else { return make }
        guard let make, !model.lowercased().hasPrefix(make.lowercased().split(separator: " ").first.map(String.init) ?? make.lowercased())
        else { return model }
        return "\(make) \(model)"
    }

    /// "1/250 s, f/2.8, ISO 400": the exposure fields there are.
    public var exposureText: String? {
        var parts: [String] = []
        if let exposure, exposure.denominator > 0, exposure.numerator > 0 {
            parts.append(
                exposure.numerator >= exposure.denominator
                    ? "\(Self.decimal(Double(exposure.numerator) / Double(exposure.denominator))) s"
                    : "1/\(Int((Double(exposure.denominator) / Double(exposure.numerator)).rounded())) s")
        }
        if let fNumber { parts.append("f/\(Self.decimal(fNumber))") }
        if let iso { parts.append("ISO \(iso)") }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    /// "2019-05-04 12:30:05", the camera's own clock (EXIF keeps no zone).
    public var takenText: String? {
        taken.map {
            String($0.year) + "-" + Self.two($0.month) + "-" + Self.two($0.day) + " " + Self.two($0.hour) + ":" + Self.two($0.minute) + ":"
                + Self.two($0.second)
        }
    }

    private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// One decimal at most: 2.8, 4, 0.5.
    public static func decimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
    }

    private static func read<Bytes: ByteReader>(_ bytes: Bytes, range: Range<Int>) -> ExifCamera? {
        guard let layout = TIFFLayout(bytes, in: range) else { return nil }
        let base = layout.base
        typealias Entry = TIFFLayout<Bytes>.Entry
        func number(_ offset: Int, _ size: Int) -> Int? { layout.number(at: offset, size: size) }
        func entries(at offset: Int?) -> [Entry] { layout.entries(atOffset: offset, limit: 1024) }
        /// Where an entry's values are: in the entry when they fit in 4 bytes, else at its offset.
        func values(_ entry: Entry, size: Int) -> Int? {
            let (total, overflow) = entry.count.multipliedReportingOverflow(by: size)
            guard !overflow, total <= 1 << 16 else { return nil }
            if total <= 4 { return entry.field }
            return number(entry.field, 4).map { base + $0 }
        }
        func text(_ entry: Entry?) -> String? {
            guard let entry, entry.type == 2, entry.count > 0, let start = values(entry, size: 1) else { return nil }
            let length = min(entry.count, 128)
            guard start + length <= range.upperBound else { return nil }
            let raw = bytes.bytes(at: start, count: length).prefix { $0 != 0 }
            let value = String(decoding: raw, as: UTF8.self).trimming { $0.isWhitespace }
            return value.isEmpty ? nil : value
        }
        func rational(_ entry: Entry?) -> (Int, Int)? {
            guard let entry, entry.type == 5 || entry.type == 10, let start = values(entry, size: 8),
                let numerator = number(start, 4), let denominator = number(start + 4, 4), denominator != 0
            else { return nil }
            return (numerator, denominator)
        }
        func integer(_ entry: Entry?) -> Int? {
            guard let entry else { return nil }
            switch entry.type {
            case 3: return number(entry.field, 2)
            case 4: return number(entry.field, 4)
            default: return nil
            }
        }
        let first = entries(at: number(base + 4, 4))
        let exifPointer = first.first { $0.tag == 0x8769 }.flatMap { number($0.field, 4) }
        let exif = entries(at: exifPointer)
        func tag(_ list: [Entry], _ tag: Int) -> Entry? { list.first { $0.tag == tag } }
        var camera = ExifCamera()
        camera.make = text(tag(first, 0x010F))
        camera.model = text(tag(first, 0x0110))
        camera.lens = text(tag(exif, 0xA434))
        camera.taken = ExifDate.date(inTIFF: bytes, range: range)
        camera.exposure = rational(tag(exif, 0x829A)).map { (numerator: $0.0, denominator: $0.1) }
        camera.fNumber = rational(tag(exif, 0x829D)).map { Double($0.0) / Double($0.1) }
        camera.focalLength = rational(tag(exif, 0x920A)).map { Double($0.0) / Double($0.1) }
        camera.iso = integer(tag(exif, 0x8827))
        camera.hasLocation = first.contains { $0.tag == 0x8825 }
        return camera
    }
}
