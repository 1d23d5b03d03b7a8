/// A TIFF structure's header and directories as stored (a TIFF file's own, or the one inside an
/// EXIF block), read through a `ByteReader` within a range: its byte order and layout (classic
/// or BigTIFF), and the one place where every offset the file gives is checked against the range.
/// `TIFFDirectories`, `TIFFDirectory`, `ExifDate`, `ExifCamera` and `ExifThumbnail` read their
/// tags through it.
struct TIFFLayout<Bytes: ByteReader> {
    /// One directory entry as stored: its tag, type and count, and where its value field is (4
    /// bytes, 8 in BigTIFF).
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
    /// BigTIFF (version 43): 8-byte offsets, value counts and value fields, 20-byte entries.
    let isBigTIFF: Bool

    /// The structure starting at `range.lowerBound`; nil when it is not a TIFF header, or is a
    /// BigTIFF one and `allowsBigTIFF` is false (an EXIF block is always classic TIFF).
    init?(_ bytes: Bytes, in range: Range<Int>, allowsBigTIFF: Bool = false) {
        guard range.count >= 8, let order = bytes.bigEndian16(at: range.lowerBound) else { return nil }
        switch order {
        case 0x4D4D: isBigEndian = true
        case 0x4949: isBigEndian = false
        default: return nil
        }
        let version = bytes.integer(at: range.lowerBound + 2, size: 2, bigEndian: isBigEndian)
        isBigTIFF = version == 43
        self.bytes = bytes
        self.range = range
        switch version {
        case 42: break
        // BigTIFF states its offsets' size, 8, then 0, before the first directory's offset.
        case 43 where allowsBigTIFF:
            guard range.count >= 16, number(at: base + 4, size: 2) == 8, number(at: base + 6, size: 2) == 0 else { return nil }
        default: return nil
        }
    }

    /// Where the header is: offsets in the structure count from here.
    var base: Int { range.lowerBound }

    /// The size of an offset, and of an entry's value count and value field.
    var offsetSize: Int { isBigTIFF ? 8 : 4 }
    /// The size of a directory's entry count.
    var countSize: Int { isBigTIFF ? 8 : 2 }
    var entrySize: Int { isBigTIFF ? 20 : 12 }

    /// IFD0's offset from the header, as the header says it.
    var firstDirectoryOffset: Int? { number(at: base + (isBigTIFF ? 8 : 4), size: offsetSize) }

    /// The unsigned integer of `size` bytes at the absolute `offset`; nil unless it lies in the
    /// range and, for 8 bytes, fits in an `Int` (no offset or size a file can have is larger).
    func number(at offset: Int, size: Int) -> Int? {
        guard offset >= range.lowerBound, offset <= range.upperBound - size else { return nil }
        if size == 8, let top = bytes.byte(at: isBigEndian ? offset : offset + 7), top >= 0x80 { return nil }
        return bytes.integer(at: offset, size: size, bigEndian: isBigEndian)
    }

    /// A count of `size` bytes at the absolute `offset`, as `number(at:size:)` reads it, but one
    /// past what an `Int` holds is `Int.max`, not nil: there, but more than anything holds, so
    /// what uses it refuses it and what follows it is still read.
    func countField(at offset: Int, size: Int) -> Int? {
        guard offset >= range.lowerBound, offset <= range.upperBound - size, bytes.byte(at: offset + size - 1) != nil else {
            return nil
        }
        return number(at: offset, size: size) ?? Int.max
    }

    /// How many entries the directory at `offset` from the header says it has (not all of them
    /// need be inside the range); nil when there is no count there.
    func entryCount(atOffset offset: Int) -> Int? {
        guard offset >= 8, offset < range.count else { return nil }
        return countField(at: base + offset, size: countSize)
    }

    /// The entries of the directory at `offset` from the header, at most `limit`, stopping at the
    /// first that is not inside the range; none when there is no directory there.
    func entries(atOffset offset: Int?, limit: Int) -> [Entry] {
        guard let offset, let count = entryCount(atOffset: offset) else { return [] }
        var found: [Entry] = []
        for index in 0..<min(count, limit) {
            let entry = base + offset + countSize + index * entrySize
            guard let tag = number(at: entry, size: 2), let type = number(at: entry + 2, size: 2),
                let values = countField(at: entry + 4, size: offsetSize)
            else { break }
            found.append(Entry(tag: tag, type: type, count: values, field: entry + 4 + offsetSize))
        }
        return found
    }

    /// The offset of the directory after the one at `offset`, which follows its entries: 0 when
    /// it is the last, or when that offset or the directory's count is past what an `Int` holds
    /// (no file is that large: the chain ends there); nil when the directory is not whole inside
    /// the range.
    func nextDirectoryOffset(afterDirectoryAt offset: Int) -> Int? {
        guard let count = entryCount(atOffset: offset) else { return nil }
        if count == Int.max { return 0 }
        // A count past what the range holds cannot be whole, and would overflow the sum below.
        guard count <= range.count / entrySize else { return nil }
        let field = base + offset + countSize + count * entrySize
        guard field <= range.upperBound - offsetSize, bytes.byte(at: field + offsetSize - 1) != nil else { return nil }
        return number(at: field, size: offsetSize) ?? 0
    }

    /// The single SHORT or LONG (or BigTIFF's LONG8) value an entry holds in its field.
    func singleInteger(_ entry: Entry) -> Int? {
        guard entry.count == 1 else { return nil }
        switch entry.type {
        case 3: return number(at: entry.field, size: 2)
        case 4: return number(at: entry.field, size: 4)
        case 16 where isBigTIFF: return number(at: entry.field, size: 8)
        default: return nil
        }
    }

    /// Where a BYTE or UNDEFINED entry's values are (absolute offsets), when there are more than
    /// its field holds and they are kept elsewhere; nil otherwise, or when the end overflows.
    func outOfLineValues(_ entry: Entry) -> Range<Int>? {
        guard [1, 7].contains(entry.type), entry.count > offsetSize, let offset = number(at: entry.field, size: offsetSize) else {
            return nil
        }
        let (start, startOverflow) = base.addingReportingOverflow(offset)
        let (end, endOverflow) = start.addingReportingOverflow(entry.count)
        return startOverflow || endOverflow ? nil : start..<end
    }
}
