import Testing

@testable import ImgviewImaging

/// The chain of a TIFF's directories, read by `TIFFDirectories` through `TIFFLayout`: classic TIFF
/// and BigTIFF, in both byte orders, whole, cut, looping, and with offsets no file can have.
struct TIFFDirectoriesTests {
    /// A TIFF written field by field: the header, then each directory (its entries and the
    /// next one's offset) one after another, then `trailer`.
    struct TIFFWriter {
        var bigEndian: Bool
        var big: Bool

        func number(_ value: Int, _ size: Int) -> [UInt8] {
            let little = (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
            return bigEndian ? little.reversed() : little
        }

        /// A SHORT (3), LONG (4) or LONG8 (16) value, or an UNDEFINED (7) count and offset.
        typealias Entry = (tag: Int, type: Int, count: Int, value: Int)

        func file(_ directories: [[Entry]], trailer: [UInt8] = [], next: [Int]? = nil) -> [UInt8] {
            let offsetSize = big ? 8 : 4
            let headerSize = big ? 16 : 8
            var bytes: [UInt8] = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
            bytes += number(big ? 43 : 42, 2)
            if big { bytes += number(8, 2) + number(0, 2) }
            let directorySize = { (entries: Int) in (big ? 8 : 2) + entries * (big ? 20 : 12) + offsetSize }
            var offsets: [Int] = []
            var position = headerSize
            for directory in directories {
                offsets.append(position)
                position += directorySize(directory.count)
            }
            bytes += number(offsets.first ?? 0, offsetSize)
            for (index, directory) in directories.enumerated() {
                bytes += number(directory.count, big ? 8 : 2)
                for entry in directory {
                    bytes += number(entry.tag, 2) + number(entry.type, 2) + number(entry.count, offsetSize)
                    let size = [3: 2, 4: 4, 16: 8][entry.type] ?? offsetSize
                    bytes += number(entry.value, size) + [UInt8](repeating: 0, count: offsetSize - size)
                }
                bytes += number(next?[index] ?? (index + 1 < offsets.count ? offsets[index + 1] : 0), offsetSize)
            }
            return bytes + trailer
        }
    }

    static let layouts = [(false, false), (true, false), (false, true), (true, true)].map { TIFFWriter(bigEndian: $0, big: $1) }

    @Test(arguments: layouts)
    func pagesThumbnailsAndAProfileAreReadInEitherOrderAndLayout(writer: TIFFWriter) throws {
        let integer = writer.big ? 16 : 4
        // Where the profile goes: after the directories, whose sizes are known in advance.
        let profileAt = (writer.big ? 16 : 8) + 2 * ((writer.big ? 8 : 2) + (writer.big ? 8 : 4)) + (5 + 3) * (writer.big ? 20 : 12)
        let profile: [UInt8] = Array(0..<40)
        let bytes = writer.file(
            [
                [(256, integer, 1, 300), (257, 3, 1, 200), (274, 3, 1, 6), (34675, 7, profile.count, profileAt), (305, 2, 4, 0)],
                [(254, 4, 1, 1), (256, 3, 1, 30), (257, 3, 1, 20)],
            ], trailer: profile)
        let read = try #require(TIFFDirectories.read(bytes))
        #expect(!read.isCut)
        #expect(read.directories.map(\.width) == [300, 30] && read.directories.map(\.height) == [200, 20])
        #expect(read.pages.map(\.index) == [0], "the second is a reduced copy")
        let page = try #require(read.pages.first)
        #expect(page.orientation == .right && page.hasColorProfile)
        let location = try #require(page.colorProfileLocation)
        #expect(Array(bytes[location]) == profile)
    }

    @Test(arguments: layouts)
    func aChainCutShortSaysSoAndKeepsTheDirectoriesBefore(writer: TIFFWriter) throws {
        let whole = writer.file([[(256, 3, 1, 4), (257, 3, 1, 5)], [(256, 3, 1, 6), (257, 3, 1, 7)]])
        let cut = try #require(TIFFDirectories.read(Array(whole.dropLast(3))))
        #expect(cut.isCut && cut.directories.map(\.width) == [4])
        // A next directory past the end of the data is a cut file too.
        let pointingPast = writer.file([[(256, 3, 1, 4), (257, 3, 1, 5)]], next: [1 << 20])
        let past = try #require(TIFFDirectories.read(pointingPast))
        #expect(past.isCut && past.directories.count == 1)
    }

    @Test(arguments: layouts)
    func aLoopEndsTheWalk(writer: TIFFWriter) throws {
        let first = writer.big ? 16 : 8
        let bytes = writer.file([[(256, 3, 1, 4), (257, 3, 1, 5)]], next: [first])
        let read = try #require(TIFFDirectories.read(bytes))
        #expect(read.directories.count == 1 && !read.isCut)
    }

    /// A BigTIFF offset or count with its top bit set is past what any file holds: the chain
    /// ends there, rather than wrapping to a negative offset.
    @Test func aBigTIFFOffsetPastAnIntIsNoDirectory() throws {
        let writer = TIFFWriter(bigEndian: true, big: true)
        let bytes = writer.file([[(256, 3, 1, 4), (257, 3, 1, 5)]], next: [Int.min])
        let read = try #require(TIFFDirectories.read(bytes))
        #expect(read.directories.map(\.width) == [4] && !read.isCut)
        // A directory that says it has more entries than any file holds ends the chain; it is
        // not a file cut short.
        var hugeCount = writer.file([[(256, 3, 1, 4)], [(256, 3, 1, 5)]])
        hugeCount[16] = 0x80
        let huge = try #require(TIFFDirectories.read(hugeCount))
        #expect(huge.directories.count == 1 && !huge.isCut)
        // An entry whose value count is past an Int is refused alone; the entries after it are read.
        let entries = writer.file([[(305, 7, 1, 0), (256, 3, 1, 40), (257, 3, 1, 30)]])
        var hugeValues = entries
        hugeValues[16 + 8 + 4] = 0x80
        let page = try #require(TIFFDirectories.read(hugeValues)?.directories.first)
        #expect(page.width == 40 && page.height == 30)
    }

    @Test func notATIFFOrABigTIFFWithAnotherOffsetSizeIsNone() {
        #expect(TIFFDirectories.read(Array("II*\u{0}".utf8)) == nil, "a header cut short")
        #expect(TIFFDirectories.read([0x49, 0x4D, 42, 0, 8, 0, 0, 0]) == nil)
        #expect(TIFFDirectories.read([0x4D, 0x4D, 0, 43, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 16]) == nil)
        #expect(TIFFDirectories.read([0x4D, 0x4D, 0, 43, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 16]) != nil)
        // An EXIF block is classic TIFF: a BigTIFF header there is no directory.
        let big = TIFFWriter(bigEndian: false, big: true).file([[(274, 3, 1, 6)]])
        #expect(TIFFDirectory(ArrayBytes(big), in: 0..<big.count) == nil)
        let classic = TIFFWriter(bigEndian: false, big: false).file([[(274, 3, 1, 6)]])
        #expect(TIFFDirectory(ArrayBytes(classic), in: 0..<classic.count)?.orientation == .right)
    }
}
