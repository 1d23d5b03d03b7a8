import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewFetching
@testable import ImgviewImaging

/// The EXIF of HEIC, AVIF, WebP and JPEG XL files: camera-exif.jpg's photo and EXIF (written by
/// exiftool) through each format's own Debian encoder, which keeps it in an `Exif` item, an `EXIF`
/// chunk or an `Exif` box (Brotli-compressed in `brob`, as cjxl writes it, or plain).
@Suite("EXIF in containers")
struct ExifContainerTests {
    static let containers = ["camera-exif.heic", "camera-exif.avif", "camera-exif.webp", "camera-exif.jxl", "camera-exif-plain.jxl"]

    @Test(arguments: containers)
    func cameraFieldsAndTheDateAreReadAsFromTheJPEG(name: String) throws {
        let jpeg = try #require(ExifCamera.read(DataBytes(try Fixtures.data("camera-exif.jpg"))))
        let bytes = try Fixtures.data(name)
        let camera = try #require(ExifCamera.read(DataBytes(bytes)), "no camera fields in \(name)")
        #expect(camera == jpeg)
        #expect(camera.cameraText == "Canon EOS 5D Mark IV" && camera.exposureText == "1/250 s, f/2.8, ISO 400" && camera.hasLocation)
        #expect(ExifDate.taken(in: DataBytes(bytes)) == ExifDateTime(Array("2019:05:04 12:30:05".utf8)))
        // Read from the file as `--sort date` reads it: a window of 4 KB, moved where the walk goes.
        let keys = ImageSortKeys.read(Fixtures.url(name))
        #expect(keys.taken == ExifDateTime(Array("2019:05:04 12:30:05".utf8))?.wallClockSeconds)
    }

    /// The JPEG walk hands the EXIF reader its APP1 even when the bytes end inside it (the first
    /// bytes of a download), steps over stray bytes between segments as libjpeg does, and stops at
    /// the first scan.
    @Test func aJPEGsEXIFIsFoundCutOrAfterStrayBytesAndNeverPastTheFirstScan() {
        let tiff = ExifFixture.tiff(original: "2021:08:09 10:11:12")
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let app1: [UInt8] = [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        let app0: [UInt8] = [0xFF, 0xE0, 0, 16] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
        let scan: [UInt8] = [0xFF, 0xDA, 0, 8, 1, 1, 0, 0, 63, 0, 0x12, 0x34, 0xFF, 0xD9]
        let soi: [UInt8] = [0xFF, 0xD8]
        let whole = soi + app0 + app1 + scan
        #expect(ExifBlock.inJPEG(ArrayBytes(whole)) == (soi.count + app0.count + 10)..<(soi.count + app0.count + app1.count))
        #expect(ExifDate.taken(in: ArrayBytes(whole))?.year == 2021)
        // Cut inside the APP1: the part there is.
        let cut = Array(whole.prefix(soi.count + app0.count + app1.count - 3))
        #expect(ExifBlock.inJPEG(ArrayBytes(cut)) == (soi.count + app0.count + 10)..<cut.count)
        // Stray bytes between segments.
        #expect(ExifDate.taken(in: ArrayBytes(soi + app0 + [0x00, 0x42] + app1 + scan))?.year == 2021)
        // An APP1 after the first scan is not the image's metadata.
        #expect(ExifBlock.inJPEG(ArrayBytes(soi + app0 + scan.dropLast(2) + app1 + [0xFF, 0xD9])) == nil)
    }

    @Test func theJPEGXLFilesHoldTheirEXIFAsTheirNamesSay() throws {
        func boxTypes(_ name: String) throws -> [String] {
            let bytes = [UInt8](try Fixtures.data(name))
            return ISOMediaHeader.boxes(in: bytes, 0..<bytes.count).map(\.type)
        }
        #expect(try boxTypes("camera-exif.jxl").contains("brob"))
        #expect(try boxTypes("camera-exif-plain.jxl").contains("Exif"))
    }

    /// A WebP whose EXIF chunk starts `Exif\0\0`, as some writers have it, and a JPEG XL box whose
    /// offset to the TIFF header is 0 or skips a prefix.
    @Test func prefixesBeforeTheTIFFHeaderAreSteppedOver() {
        let tiff = ExifFixture.tiff(original: "2021:08:09 10:11:12")
        func le32(_ value: Int) -> [UInt8] {
            [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)]
        }
        func be32(_ value: Int) -> [UInt8] { le32(value).reversed() }
        func riff(_ chunk: [UInt8]) -> [UInt8] {
            let vp8l: [UInt8] = Array("VP8L".utf8) + [5, 0, 0, 0, 0x2F, 0, 0, 0, 0, 0]
            let exif = Array("EXIF".utf8) + le32(chunk.count) + chunk + (chunk.count % 2 == 1 ? [0] : [])
            let body = Array("WEBP".utf8) + vp8l + exif
            return Array("RIFF".utf8) + le32(body.count) + body
        }
        for chunk in [tiff, Array("Exif".utf8) + [0, 0] + tiff] {
            #expect(ExifDate.taken(in: ArrayBytes(riff(chunk)))?.year == 2021)
        }
        func jxl(_ payload: [UInt8]) -> [UInt8] {
            let signature: [UInt8] = [0, 0, 0, 0x0C] + Array("JXL ".utf8) + [0x0D, 0x0A, 0x87, 0x0A]
            let ftyp = be32(20) + Array("ftypjxl ".utf8) + be32(0) + Array("jxl ".utf8)
            return signature + ftyp + be32(8 + payload.count) + Array("Exif".utf8) + payload + be32(10) + Array("jxlc".utf8) + [0xFF, 0x0A]
        }
        #expect(ExifDate.taken(in: ArrayBytes(jxl(be32(0) + tiff)))?.day == 9)
        #expect(ExifDate.taken(in: ArrayBytes(jxl(be32(6) + Array("Exif".utf8) + [0, 0] + tiff)))?.day == 9)
        // An offset past the box, and no header anywhere near: nothing, and no crash.
        #expect(ExifDate.taken(in: ArrayBytes(jxl(be32(1 << 30) + [UInt8](repeating: 7, count: 100)))) == nil)
    }

    /// A cut file gives all the fields or none (the item, chunk or box must be whole), never a
    /// crash: the bytes are cut at a hundred lengths.
    @Test(arguments: containers)
    func cutFilesGiveAllOrNothing(name: String) throws {
        let bytes = [UInt8](try Fixtures.data(name))
        let whole = ExifCamera.read(ArrayBytes(bytes))
        for length in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 97)) {
            let camera = ExifCamera.read(ArrayBytes(Array(bytes.prefix(length))))
            #expect(camera == nil || camera == whole, "cut at \(length)")
        }
    }
}
