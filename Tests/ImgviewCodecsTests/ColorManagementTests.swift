import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewCodecs
@testable import ImgviewImaging

/// Colour management: one photograph (04_coffee at 96×64) saved in sRGB, and converted to
/// Display P3 and to Adobe RGB with the profile embedded, by Debian's own tools
/// (scripts/generate-format-fixtures.sh colour). Decoded, every one must look like the original.
@Suite("Colour profiles converted to sRGB")
struct ColorManagementTests {
    let decoder = ImageDecoder()

    func decode(_ name: String) throws -> DecodedImage {
        try decoder.decode(try Fixtures.data(name), request: DecodeRequest())
    }

    static let converted: [(name: String, profile: String)] = [
        ("coffee-p3.jpg", "Display P3"), ("coffee-adobe.jpg", "Adobe RGB (1998)"), ("coffee-p3.png", "Display P3"),
        ("coffee-p3.webp", "Display P3"), ("coffee-adobe.tif", "Adobe RGB (1998)"),
    ]

    /// The colours of `pixels` averaged over 4×4 squares, as a preview sees them (24×16 here):
    /// what issue 30's budget is stated for, and where a lossy format's own noise averages out.
    static func preview(_ pixels: PixelBuffer) -> [UInt8] {
        var colours: [UInt8] = []
        for row in stride(from: 0, to: pixels.height - 3, by: 4) {
            for column in stride(from: 0, to: pixels.width - 3, by: 4) {
                for channel in 0..<3 {
                    var total = 0
                    for y in row..<(row + 4) {
                        for x in column..<(column + 4) { total += Int(pixels.bytes[(y * pixels.width + x) * 4 + channel]) }
                    }
                    colours.append(UInt8(total / 16))
                }
            }
        }
        return colours
    }

    /// Issue 30's budget: a preview within ΔE2000 2 on average of the sRGB original's.
    @Test(arguments: converted)
    func aConvertedPhotoLooksLikeItsSRGBOriginal(name: String, profile: String) throws {
        let original = try decode("coffee.png")
        let image = try decode(name)
        #expect(image.warning == nil)
        #expect(image.colorProfile?.name == profile)
        #expect(try decoder.inspect(try Fixtures.data(name)).colorProfile?.name == profile, "the header says it too (info)")
        let difference = ColorDifference.meanDeltaE(Self.preview(original.pixels), Self.preview(image.pixels), stride: 3)
        #expect(difference <= 2, "mean ΔE00 \(difference)")
    }

    /// The same test fails when the profile is ignored: the values read as if they were sRGB
    /// (P3's dull and Adobe RGB's duller, by 2.4 to 4 on this photograph).
    @Test(arguments: converted)
    func withoutConversionTheSamePhotoIsOffBudget(name: String, profile: String) throws {
        let bytes = try Fixtures.data(name)
        let format = try ImageProbe.probing(bytes).format
        let unmanaged = try ImageDecoder.decoder(for: format).decode(bytes, request: DecodeRequest())
        let difference = ColorDifference.meanDeltaE(
            Self.preview(try decode("coffee.png").pixels), Self.preview(unmanaged.pixels), stride: 3)
        #expect(difference > 2, "mean ΔE00 \(difference) unmanaged")
    }

    /// An sRGB profile under another name (colord's 20 KB one) changes nothing: the transform is
    /// found to be the identity and the pixels are the untagged file's, to the byte.
    @Test func anSRGBProfileLeavesThePixelsAlone() throws {
        let tagged = try decode("q-icc.tif")
        #expect(tagged.colorProfile?.name == "sRGB")
        #expect(tagged.pixels == (try decode("q.tif")).pixels)
        guard case .success(let transform) = ColorTransform.make(from: try #require(tagged.colorProfile)), case .identity = transform.kind
        else {
            Issue.record("not found to be the identity")
            return
        }
    }

    /// A profile whose bytes are damaged is ignored, with a warning; the picture is still shown.
    @Test func aDamagedProfileIsIgnoredWithAWarning() throws {
        var bytes = [UInt8](try Fixtures.data("coffee-p3.jpg"))
        let signature = try #require(bytes.indices.first { Array(bytes[$0..<($0 + 4)]) == Array("acsp".utf8) })
        bytes.replaceSubrange(signature..<(signature + 4), with: Array("xxxx".utf8))
        let image = try decoder.decode(Data(bytes), request: DecodeRequest())
        #expect(image.warning == "colours shown as sRGB: the embedded ICC profile is damaged")
        #expect(image.pixels == (try JPEGDecoder().decode(Data(bytes), request: DecodeRequest())).pixels)
    }

    /// A JPEG's profile split over APP2 segments must be whole: a missing piece means none.
    @Test func aJPEGProfileIsJoinedFromItsPiecesOrIgnored() throws {
        let profile = Array(try Fixtures.data("DisplayP3.icc"))
        func jpeg(_ pieces: [(sequence: UInt8, count: UInt8, bytes: ArraySlice<UInt8>)]) -> Data {
            var bytes: [UInt8] = [0xFF, 0xD8]
            for piece in pieces {
                let length = 2 + 14 + piece.bytes.count
                bytes +=
                    [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + Array("ICC_PROFILE\0".utf8) + [piece.sequence, piece.count]
                bytes += piece.bytes
            }
            return Data(bytes + [0xFF, 0xD9])
        }
        let halves = (profile[..<300], profile[300...])
        #expect(ColorProfileLocator.jpegProfile(jpeg([(2, 2, halves.1), (1, 2, halves.0)])) == .icc(profile), "joined in order")
        #expect(ColorProfileLocator.jpegProfile(jpeg([(1, 2, halves.0)])) == nil, "a piece missing")
        #expect(ColorProfileLocator.jpegProfile(jpeg([(1, 2, halves.0), (1, 2, halves.1)])) == nil, "a piece twice")
    }

    /// Code points (HEIC's and AVIF's nclx) give the same colours as the profile they stand for.
    @Test func codePointsConvertAsTheirProfileDoes() throws {
        var bytes: [UInt8] = []
        for index in 0..<64 {
            let red = UInt8(index * 4)
            let green = UInt8(255 - index * 3)
            let blue = UInt8(index * 2 + 40)
            bytes += [red, green, blue, 255]
        }
        let pixels = PixelBuffer(width: 8, height: 8, bytes: bytes)
        func converted(_ profile: EmbeddedColorProfile) -> PixelBuffer {
            var image = DecodedImage(header: ImageHeader(format: .heic, storedWidth: 8, storedHeight: 8, orientation: .up), pixels: pixels)
            ColorManagement.convert(&image, from: profile)
            #expect(image.warning == nil)
            return image.pixels
        }
        let viaICC = converted(.icc(Array(try Fixtures.data("DisplayP3.icc"))))
        let viaCICP = converted(.cicp(primaries: 12, transfer: 13, matrix: 6, fullRange: true))
        #expect(viaICC != pixels, "P3 is not sRGB")
        #expect(zip(viaICC.bytes, viaCICP.bytes).allSatisfy { abs(Int($0) - Int($1)) <= 1 })
        #expect(converted(.cicp(primaries: 1, transfer: 13, matrix: 6, fullRange: true)) == pixels, "sRGB code points: nothing to do")
        var pq = DecodedImage(header: ImageHeader(format: .heic, storedWidth: 8, storedHeight: 8, orientation: .up), pixels: pixels)
        ColorManagement.convert(&pq, from: .cicp(primaries: 9, transfer: 16, matrix: 9, fullRange: false))
        #expect(pq.warning == "colours not converted: BT.2100 PQ is not supported" && pq.pixels == pixels)
    }

    /// Profiles are named by their colorants, whatever their text says; others by their text.
    @Test func profilesAreNamedByTheirColorants() throws {
        let p3 = try #require(ICCProfileSummary(Array(try Fixtures.data("DisplayP3.icc"))))
        #expect(p3.name == "Display P3" && p3.space == .rgb)
        let adobe = try #require(
            ICCProfileSummary(Array(try Data(contentsOf: URL(fileURLWithPath: "/usr/share/color/icc/compatibleWithAdobeRGB1998.icc")))))
        #expect(adobe.description == "Compatible with Adobe RGB (1998)" && adobe.name == "Adobe RGB (1998)")
        #expect(
            ICCProfileSummary(Array("not a profile at all, but long enough to be read as one".utf8) + [UInt8](repeating: 0, count: 100))
                == nil)
        #expect(EmbeddedColorProfile.cicp(primaries: 12, transfer: 13, matrix: 0, fullRange: true).name == "Display P3")
        #expect(EmbeddedColorProfile.linearSRGB.name == "sRGB linear")
    }

    /// A missing Little CMS is a reason, not a crash: the pixels are shown as they are.
    @Test func aMissingLibraryIsNamed() {
        guard case .failure(let unavailable) = ColorLibrary.load(soname: "liblcms2.so.999", package: "liblcms2-2") else {
            Issue.record("a library that is not there was opened")
            return
        }
        #expect(unavailable.summary.hasPrefix("liblcms2.so.999 cannot be loaded (install the Debian package liblcms2-2)"))
    }
}
