import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewCodecs
@testable import ImgviewImaging

/// A JPEG's EXIF thumbnail stands in for the photograph in a thumbnail's decode when it covers the
/// size asked for and has the photograph's shape; never in a decode of the image itself.
@Suite("EXIF thumbnails")
struct ExifThumbnailTests {
    /// photo.jpg (128×96, colours) carrying `thumbnail` (a fixture's bytes) in its EXIF.
    func photo(carrying thumbnail: String, bigEndian: Bool = false, compression: Int = 6) throws -> Data {
        let tiff = ExifFixture.tiff(thumbnail: Array(try Fixtures.data(thumbnail)), compression: compression, bigEndian: bigEndian)
        return ExifFixture.jpeg(try Fixtures.data("photo.jpg"), tiff: tiff)
    }

    func decode(_ bytes: Data, minimum: (Int, Int), thumbnails: Bool = true) throws -> DecodedImage {
        let header = try JPEGDecoder().inspect(bytes)
        return try JPEGDecoder().decode(
            bytes, header: header, request: DecodeRequest(minimumSize: minimum, allowsEmbeddedThumbnail: thumbnails))
    }

    @Test(arguments: [false, true])
    func aThumbnailThatCoversTheSizeAndHasTheShapeIsDecodedInstead(bigEndian: Bool) throws {
        // gray.jpg is 16×12, grey: the photograph's shape, another picture.
        let bytes = try photo(carrying: "gray.jpg", bigEndian: bigEndian)
        let range = try #require(ExifThumbnail.range(in: DataBytes(bytes)))
        #expect(Data(bytes[range]) == (try Fixtures.data("gray.jpg")))
        let grey = try JPEGDecoder().decode(try Fixtures.data("gray.jpg"), request: DecodeRequest())
        let thumbnail = try decode(bytes, minimum: (16, 12))
        #expect(thumbnail.pixels == grey.pixels)
        #expect(thumbnail.header.storedWidth == 128, "the facts stay the photograph's")
        // The photograph itself at 1/8 is the same size, in colour.
        let photograph = try decode(bytes, minimum: (16, 12), thumbnails: false)
        #expect(photograph.pixels.width == 16 && photograph.pixels != grey.pixels)
        // Larger than the thumbnail: the photograph, at the scale that covers it.
        #expect(try decode(bytes, minimum: (17, 13)).pixels.width == 32)
    }

    @Test func aThumbnailOfAnotherShapeOrNotAJPEGIsLeftAlone() throws {
        let photograph = try decode(try photo(carrying: "gray.jpg"), minimum: (16, 12), thumbnails: false).pixels
        // orient6.jpg is stored 12×16: not the photograph's 4:3.
        #expect(try decode(try photo(carrying: "orient6.jpg"), minimum: (12, 9)).pixels == photograph)
        // Compression 1 is an uncompressed thumbnail: not read.
        #expect(try decode(try photo(carrying: "gray.jpg", compression: 1), minimum: (16, 12)).pixels == photograph)
        // Bytes that do not start as a JPEG does, and a file with no IFD1: none.
        var damaged = ExifFixture.tiff(thumbnail: Array(try Fixtures.data("gray.jpg")))
        damaged[56] = 0
        #expect(ExifThumbnail.range(in: DataBytes(ExifFixture.jpeg(try Fixtures.data("photo.jpg"), tiff: damaged))) == nil)
        #expect(ExifThumbnail.range(in: DataBytes(try Fixtures.data("camera-exif.jpg"))) == nil)
    }
}
