/// The JPEG thumbnail a camera stores in a JPEG's EXIF block (IFD1): a picture of a few hundred
/// pixels that a grid's cell can show without decoding the photograph.
///
/// Every offset is checked against the EXIF block it must lie in, and the bytes must start as a
/// JPEG does; whether the thumbnail is large enough and has the photograph's shape is the
/// decoder's to judge, from its own frame header.
package enum ExifThumbnail {
    /// Where the embedded thumbnail's bytes are in `bytes` (a JPEG file); nil when there is none,
    /// it is not a JPEG (compression 6), or it does not lie inside the EXIF block.
    package static func range(in bytes: some ByteReader) -> Range<Int>? {
        guard let block = ExifBlock.inJPEG(bytes) else { return nil }
        return range(in: bytes, block: block)
    }

    private static func range<Bytes: ByteReader>(in bytes: Bytes, block: Range<Int>) -> Range<Int>? {
        guard let layout = TIFFLayout(bytes, in: block), let first = layout.firstDirectoryOffset,
            let next = layout.nextDirectoryOffset(afterDirectoryAt: first), next >= 8, next != first
        else { return nil }
        var compression: Int?
        var offset: Int?
        var length: Int?
        for entry in layout.entries(atOffset: next, limit: 64) {
            switch entry.tag {
            case 0x0103: compression = layout.singleInteger(entry)
            case 0x0201: offset = layout.singleInteger(entry)
            case 0x0202: length = layout.singleInteger(entry)
            default: break
            }
        }
        guard compression == nil || compression == 6, let offset, let length, length > 4 else { return nil }
        let start = layout.base + offset
        let (end, overflow) = start.addingReportingOverflow(length)
        guard !overflow, start >= block.lowerBound, end <= block.upperBound, bytes.bigEndian16(at: start) == 0xFFD8 else { return nil }
        return start..<end
    }
}
