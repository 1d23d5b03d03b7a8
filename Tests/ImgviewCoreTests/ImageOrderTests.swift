import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewFetching
@testable import ImgviewImaging

/// What `--sort` goes by: EXIF dates read from a file's first 4 KB, sort keys read from files,
/// and the ordering itself (ties and unknowns in the listing's order).
@Suite("Image order")
struct ImageOrderTests {
    static let jpeg = Data([0xFF, 0xD8, 0xFF, 0xDB, 0x00, 0x04, 0x00, 0x00, 0xFF, 0xD9])

    func taken(_ data: Data) -> ExifDateTime? { ExifDate.taken(in: DataBytes(data)) }
    func taken(_ bytes: [UInt8]) -> ExifDateTime? { ExifDate.taken(in: ArrayBytes(bytes)) }

    @Test func theDateTakenComesFromTheExifDirectoryElseIFD0() {
        let original = ExifFixture.tiff(original: "2024:07:14 18:30:05", modified: "2025:01:01 00:00:00")
        let date = taken(ExifFixture.jpeg(Self.jpeg, tiff: original))
        #expect(date == ExifDateTime(Array("2024:07:14 18:30:05".utf8)))
        #expect(date?.year == 2024 && date?.second == 5)
        let bigEndian = ExifFixture.tiff(original: "2001:02:03 04:05:06", bigEndian: true)
        #expect(taken(ExifFixture.jpeg(Self.jpeg, tiff: bigEndian))?.day == 3)
        // No DateTimeOriginal: IFD0's DateTime.
        let onlyModified = ExifFixture.tiff(original: nil, modified: "1999:12:31 23:59:59")
        #expect(taken(ExifFixture.jpeg(Self.jpeg, tiff: onlyModified))?.year == 1999)
        // A TIFF file is the structure itself.
        #expect(taken(original)?.month == 7)
        // Unknown dates are no dates.
        #expect(
            taken(ExifFixture.jpeg(Self.jpeg, tiff: ExifFixture.tiff(original: "0000:00:00 00:00:00"))) == nil)
        #expect(taken(Self.jpeg) == nil)
    }

    @Test func theDateIsFoundInAFilesFirstFourKilobytesThoughItsSegmentGoesOn() {
        // A 60 KB APP1 (a thumbnail after the directories): cut at 4 KB, the date is still there.
        let tiff = ExifFixture.tiff(original: "2020:02:29 12:00:00", padding: 60_000)
        let file = [UInt8](ExifFixture.jpeg(Self.jpeg, tiff: tiff))
        #expect(taken(Array(file.prefix(ImageSortKeys.headLength)))?.day == 29)
        // An offset pointing past what was read is no date, and no crash.
        #expect(taken(Array(file.prefix(40))) == nil)
    }

    @Test func datesCompareAsWallClockTime() throws {
        func date(_ text: String) throws -> ExifDateTime { try #require(ExifDateTime(Array(text.utf8))) }
        #expect(try date("1970:01:01 00:00:00").wallClockSeconds == 0)
        #expect(try date("2000:03:01 00:00:00").wallClockSeconds == 951_868_800)
        #expect(try date("2024-07-14 18:30:05").wallClockSeconds == 1_720_981_805)
        #expect(try date("2024-07-14 18:30:05").isoText == "2024-07-14T18:30:05")
        #expect(try date("1901:12:31 23:59:59").isoText == "1901-12-31T23:59:59", "before 1970")
        // As the file has it, as `info`'s text line shows it: not rolled into another day.
        #expect(try date("2019:02:30 10:00:60").isoText == "2019-02-30T10:00:60")
        #expect(try date("2023:12:31 23:59:59") < date("2024:01:01 00:00:00"))
        for bad in ["", "2024:13:01 00:00:00", "2024:07:14", "    :  :     :  :  ", "2024:07:14T18:30:05", "2024:07-14 18:30:05"] {
            #expect(ExifDateTime(Array(bad.utf8)) == nil, "\(bad)")
        }
    }

    @Test func sortKeysAreReadFromTheFiles() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let dated = folder.appendingPathComponent("dated.jpg")
        try ExifFixture.jpeg(Self.jpeg, tiff: ExifFixture.tiff(original: "2024:07:14 18:30:05")).write(to: dated)
        let plain = folder.appendingPathComponent("plain.jpg")
        try Self.jpeg.write(to: plain)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_000_000_000)], ofItemAtPath: plain.path)
        let keys = ImageSortKeys.read(dated)
        #expect(keys.taken == 1_720_981_805)
        #expect(keys.byteCount == Int64(try Data(contentsOf: dated).count))
        let plainKeys = ImageSortKeys.read(plain)
        #expect(plainKeys.modified == Int64(1_000_000_000) * 1_000_000_000)
        // Without a date taken, the modification time as local wall-clock time.
        #expect(plainKeys.taken == ImageSortKeys.localWallClock(1_000_000_000))
        #expect(ImageSortKeys.read(URL(string: "http://example.test/a.jpg")!) == ImageSortKeys())
        #expect(ImageSortKeys.read(folder.appendingPathComponent("gone.jpg")) == ImageSortKeys())
    }

    /// A file's time is anyone's to set: in 2300 its nanoseconds pass what an Int64 holds, and
    /// it sorts last, not as a crash.
    @Test func aFileModifiedPast2262SortsLast() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let future = folder.appendingPathComponent("future.jpg")
        try Self.jpeg.write(to: future)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 10_413_792_000)], ofItemAtPath: future.path)
        #expect(ImageSortKeys.read(future).modified == Int64.max)
        #expect(ImageSortKeys.nanoseconds(timespec(tv_sec: -10_000_000_000, tv_nsec: 0)) == Int64.min)
        #expect(ImageSortKeys.nanoseconds(timespec(tv_sec: 9_223_372_036, tv_nsec: 999_999_999)) == Int64.max)
    }

    @Test func orderingsBreakTiesAndPlaceUnknownsByTheListing() {
        let images = ["a", "b", "c", "d", "e"].map { AppImage(name: $0, url: URL(string: "http://example.test/\($0)")!) }
        let arrival = Dictionary(uniqueKeysWithValues: images.enumerated().map { ($1.urlString, $0) })
        // Sizes: a 30, b 10, c unknown, d 10, e 20.
        let keys: [String: ImageSortKeys] = [
            images[0].urlString: .init(byteCount: 30), images[1].urlString: .init(byteCount: 10),
            images[3].urlString: .init(byteCount: 10), images[4].urlString: .init(byteCount: 20),
        ]
        func names(_ ordering: ImageOrdering, shuffle: [String: UInt64] = [:]) -> String {
            ordering.sorted(images.reversed(), arrival: arrival, keys: keys, shuffle: shuffle).map(\.name).joined()
        }
        #expect(names(ImageOrdering(order: .name)) == "abcde")
        #expect(names(ImageOrdering(order: .name, isReversed: true)) == "edcba")
        #expect(names(ImageOrdering(order: .size)) == "bdeac")
        #expect(names(ImageOrdering(order: .size, isReversed: true)) == "aebdc", "ties keep the listing's order; unknowns stay last")
        let shuffle = Dictionary(uniqueKeysWithValues: images.enumerated().map { ($1.urlString, UInt64(($0 * 7) % 5)) })
        #expect(names(ImageOrdering(order: .shuffle), shuffle: shuffle) == "adbec")
        #expect(ImageOrder.name.next == .date && ImageOrder.size.next == .name && ImageOrder.shuffle.next == .name)
    }
}
