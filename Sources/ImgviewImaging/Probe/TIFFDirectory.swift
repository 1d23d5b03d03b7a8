/// The first directory (IFD0) of a TIFF structure: a TIFF file's own, or the one inside an EXIF
/// block (JPEG APP1, PNG eXIf), read through a `ByteReader` within a range.
///
/// Only what the probe needs: single SHORT or LONG values held in their entry, and whether a tag
/// is there at all. Every offset comes from the file and is checked against the range.
struct TIFFDirectory {
    /// One entry of the directory: its tag, and its value when it is one SHORT or LONG.
    struct Entry {
        var tag: Int
        var value: Int?
    }

    private(set) var entries: [Entry] = []

    /// The directory of the TIFF structure starting at `range.lowerBound`; nil when it is not one.
    init?(_ bytes: some ByteReader, in range: Range<Int>) {
        let base = range.lowerBound
        guard range.count >= 8, let order = bytes.bigEndian16(at: base) else { return nil }
        let bigEndian: Bool
        switch order {
        case 0x4D4D: bigEndian = true
        case 0x4949: bigEndian = false
        default: return nil
        }
        func number(_ offset: Int, _ size: Int) -> Int? {
            guard offset >= base, offset + size <= range.upperBound else { return nil }
            return bytes.integer(at: offset, size: size, bigEndian: bigEndian)
        }
        // BigTIFF (43) lays its directories out otherwise.
        guard number(base + 2, 2) == 42, let first = number(base + 4, 4) else { return nil }
        let directory = base + first
        guard first >= 8, let count = number(directory, 2) else { return nil }
        for index in 0..<min(count, 4096) {
            let entry = directory + 2 + index * 12
            guard let tag = number(entry, 2), let type = number(entry + 2, 2), let values = number(entry + 4, 4) else { break }
            var value: Int?
            if values == 1 {
                switch type {
                case 3: value = number(entry + 8, 2)
                case 4: value = number(entry + 8, 4)
                default: value = nil
                }
            }
            entries.append(Entry(tag: tag, value: value))
        }
    }

    /// The single SHORT or LONG value of `tag`.
    func value(of tag: Int) -> Int? {
        entries.first { $0.tag == tag }?.value
    }

    func contains(_ tag: Int) -> Bool {
        entries.contains { $0.tag == tag }
    }

    /// The orientation tag (0x0112), when it holds one of the eight values.
    var orientation: ImageOrientation? {
        value(of: 0x0112).flatMap(ImageOrientation.init(rawValue:))
    }
}
