import Testing

@testable import ImgviewImaging

/// `ipma`, read once for the primary item's size and for every item's coded-size check: both
/// versions (16- and 32-bit item IDs), both index widths, and an entry cut by the box's end.
struct PropertyAssociationTests {
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let size = 8 + payload.count
        return [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: size >> $0) } + Array(type.utf8) + payload
    }

    @Test func itemsAndTheirPropertiesInEitherVersionAndWidth() {
        // Version 0, 7-bit indices: item 1 → 1, 2 (the top bit marks 2 essential); item 2 → 3.
        let narrow = Self.box("ipma", [0, 0, 0, 0, 0, 0, 0, 2, 0, 1, 2, 0x01, 0x82, 0, 2, 1, 3])
        let read = ISOMediaHeader.propertyAssociations(narrow, ipma: ISOMediaHeader.boxes(in: narrow, 0..<narrow.count)[0])
        #expect(read.map(\.item) == [1, 2] && read.map(\.indices) == [[1, 2], [3]])
        // Version 1, 15-bit indices: item 0x10000 → 300 (essential) and 5.
        let wide = Self.box("ipma", [1, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 2, 0x81, 0x2C, 0x00, 0x05])
        let readWide = ISOMediaHeader.propertyAssociations(wide, ipma: ISOMediaHeader.boxes(in: wide, 0..<wide.count)[0])
        #expect(readWide.map(\.item) == [0x10000] && readWide.map(\.indices) == [[300, 5]])
        // The second entry says three indices and the box holds one: only the first entry is read.
        let cut = Self.box("ipma", [0, 0, 0, 0, 0, 0, 0, 2, 0, 1, 1, 0x01, 0, 2, 3, 0x04])
        let readCut = ISOMediaHeader.propertyAssociations(cut, ipma: ISOMediaHeader.boxes(in: cut, 0..<cut.count)[0])
        #expect(readCut.map(\.item) == [1] && readCut.map(\.indices) == [[1]])
    }

    /// A 64-bit box size reads from the 8 bytes after the type; one of 4 GB or more is refused.
    @Test func aLargeBoxSizeIsReadAndOneOf4GBIsRefused() {
        let large: [UInt8] = [0, 0, 0, 1] + Array("mdat".utf8) + [0, 0, 0, 0, 0, 0, 0, 24] + [UInt8](repeating: 0, count: 8)
        #expect(ISOMediaHeader.boxSize(in: ArrayBytes(large), at: 0, end: large.count)! == (24, 16))
        let huge: [UInt8] = [0, 0, 0, 1] + Array("mdat".utf8) + [0, 0, 0, 1, 0, 0, 0, 0]
        #expect(ISOMediaHeader.boxSize(in: ArrayBytes(huge), at: 0, end: huge.count) == nil)
        #expect(ISOMediaHeader.boxSize(in: ArrayBytes(large), at: 0, end: 12) == nil, "the header cut by its end")
        let toTheEnd: [UInt8] = [0, 0, 0, 0] + Array("mdat".utf8) + [1, 2, 3]
        #expect(ISOMediaHeader.boxSize(in: ArrayBytes(toTheEnd), at: 0, end: toTheEnd.count)! == (11, 8))
    }
}
