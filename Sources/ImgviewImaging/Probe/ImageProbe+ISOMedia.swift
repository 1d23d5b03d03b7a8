extension ImageProbe {
    /// The most of a `meta` box read into memory to find the primary item and its data.
    public static let maxMetaBytes = 16 << 20

    /// ISO media (AVIF, HEIC; and a JPEG XL container's completeness): the brands of `ftyp` say an
    /// image sequence, `meta` holds the primary item's size (`ispe`), turn (`irot`) and colour
    /// description (`colr`), and a `moov` box a sequence's frames. Read to `.whole`, box after box:
    /// complete once a box that says what the file holds was there (`meta`, `moov`; `jxlc`, the
    /// last `jxlp`) and every item's data that `meta`'s `iloc` places in the file is there too.
    mutating func readISOMedia(_ bytes: some ByteReader, through depth: Depth) {
        var position = 0
        var described = false
        var dataEnd = 0
        completeness = nil
        while position < bytes.count {
            let header = bytes.bytes(at: position, count: 16)
            // A header cut short, or a few bytes after the last box.
            guard header.count >= 8 else { break }
            guard header[4..<8].allSatisfy({ (0x20...0x7E).contains($0) }) else {
                if !described { completeness = .unknown }  // not a box before anything said what the file holds
                break
            }
            guard let (size, headerLength) = ISOMediaHeader.boxSize(in: bytes, at: position, end: bytes.count) else {
                completeness = header.count < 16 ? .truncated : .unknown
                break
            }
            guard position + size <= bytes.count else {
                completeness = .truncated
                break
            }
            switch String(decoding: header[4..<8], as: UTF8.self) {
            case "ftyp":
                let brands = bytes.bytes(at: position + headerLength, count: min(size - headerLength, 256))
                for start in stride(from: 0, to: brands.count - 3, by: 4) where start != 4 {  // major, version, compatible…
                    if ["avis", "msf1", "hevs"].contains(String(decoding: brands[start..<start + 4], as: UTF8.self)) { isAnimated = true }
                }
            case "meta":
                guard size <= Self.maxMetaBytes else {
                    completeness = .unknown
                    break
                }
                let meta = bytes.bytes(at: position, count: size)
                if let item = ISOMediaHeader.primaryImageSize(meta) {
                    storedSize = ImageDimensions(width: item.width, height: item.height)
                    // `irot` turns anticlockwise; EXIF's 6 and 8 turn a quarter clockwise and anticlockwise.
                    orientation = [.up, .left, .down, .right][item.quarterTurns]
                    hasColorProfile = item.hasColorDescription
                }
                guard let reach = ISOMediaHeader.itemDataEnd(meta: meta) else {
                    completeness = .unknown
                    break
                }
                dataEnd = max(dataEnd, reach)
                described = true
            case "moov":
                isAnimated = true
                described = true
            case "jxlc":
                described = true
            case "jxlp":
                // A part of the codestream: its index first, the top bit set on the last part.
                if let index = bytes.bigEndian32(at: position + headerLength), index & 0x8000_0000 != 0 { described = true }
            default:
                break
            }
            if completeness != nil { break }
            // Everything the header tells is in the boxes before the media data.
            if depth == .header, described, storedSize != nil { return }
            position += size
        }
        if completeness == nil { completeness = described && dataEnd <= bytes.count ? .complete : .truncated }
    }
}
