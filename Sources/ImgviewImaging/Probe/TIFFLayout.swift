/// A TIFF structure's header and directories as stored (a TIFF file's own, or the one inside an
/// EXIF block), read through a `ByteReader` within a range: its byte order, and the one place
/// where every offset the file gives is checked against the range. `TIFFDirectory`, `ExifDate`
/// and `ExifCamera` read their tags through it.
struct TIFFLayout<Bytes: ByteReader> {
    /// One directory entry as stored: its tag, type and count, and where its 4-byte value field is.
    struct Entry {
        var tag: Int
        var type: Int
        var count: Int
        /// The absolute offset of the value field: the values when they fit in it, else their offset.
        var field: Int
    }

    let bytes: Bytes
    let range: Range<Int>
    let isBigEndian: Bool

    /// The structure starting at `range.lowerBound`; nil when it is not a classic TIFF header
    /// (BigTIFF, 43, lays its directories out otherwise).
    init?(_ bytes: Bytes, in range: Range<Int>) {
        guard range.count >= 8, let order = bytes.bigEndian16(at: range.lowerBound) else { return nil }
        switch order {
        case 0x4D4D: isBigEndian = true
        case 0x4949: isBigEndian = false
        default: return nil
        }
        self.bytes = bytes
        self.range = range
        guard number(at: range.lowerBound + 2, size: 2) == 42 else { return nil }
    }

    /// Where the header is: offsets in the structure count from here.
    var base: Int { range.lowerBound }

    /// IFD0's offset from the header, as the header says it.
    var firstDirectoryOffset: Int? { number(at: base + 4, size: 4) }

    /// The unsigned integer of `size` bytes at the absolute `offset`; nil unless it lies in the range.
    func number(at offset: Int, size: Int) -> Int? {
        guard offset >= range.lowerBound, offset + size <= range.upperBound else { return nil }
        return bytes.integer(at: offset, size: size, bigEndian: isBigEndian)
    }

    /// The entries of the directory at `offset` from the header, at most `limit`, stopping at the
    /// first that is not inside the range; none when there is no directory there.
    func entries(atOffset offset: Int?, limit: Int) -> [Entry] {
        guard let offset, offset >= 8, let count = number(at: base + offset, size: 2) else { return [] }
        var found: [Entry] = []
        for index in 0..<min(count, limit) {
            let entry = base + offset + 2 + index * 12
            guard let tag = number(at: entry, size: 2), let type = number(at: entry + 2, size: 2),
                let values = number(at: entry + 4, size: 4)
            else { break }
            found.append(Entry(tag: tag, type: type, count: values, field: entry + 8))
        }
        return found
    }

    /// The single SHORT or LONG value an entry holds in its field.
    func singleInteger(_ entry: Entry) -> Int? {
        guard entry.count == 1 else { return nil }
        switch entry.type {
        case 3: return number(at: entry.field, size: 2)
        case 4: return number(at: entry.field, size: 4)
        default: return nil
        }
    }
}
