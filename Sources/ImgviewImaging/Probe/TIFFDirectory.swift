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
        guard let layout = TIFFLayout(bytes, in: range), let first = layout.firstDirectoryOffset, first >= 8,
            layout.entryCount(atOffset: first) != nil
        else { return nil }
        entries = layout.entries(atOffset: first, limit: 4096).map { Entry(tag: $0.tag, value: layout.singleInteger($0)) }
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
