import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewCodecs
@testable import ImgviewImaging

/// Files made to hurt the new decoders: each is refused with its one line, or shows what is there
/// with a warning, in bounded time (`show` measures the memory: HostileFormatCommandTests).
@Suite("Hostile TIFF, HEIC, JPEG XL, QOI, ICO and APNG files")
struct HostileFileTests {
    let decoder = ImageDecoder()

    func outcome(_ bytes: Data, request: DecodeRequest = DecodeRequest(minimumSize: (160, 144))) -> Result<DecodedImage, ImageDecodingError>
    {
        do {
            return .success(try decoder.decode(bytes, request: request))
        } catch {
            return .failure(error)
        }
    }

    @Test func declaredSizesPastTheLimitAreRefusedWithTheirNumbers() throws {
        let limit = DecodeRequest.defaultMaxPixelCount
        #expect(
            outcome(HostileImages.tiff(width: 100_000, height: 100_000, rowsPerStrip: 100_000)).failure
                == .tooLarge(width: 100_000, height: 100_000, limit: limit))
        #expect(
            outcome(try HostileImages.heicDeclaring(width: 60_000, height: 60_000, in: "q.heic")).failure
                == .tooLarge(width: 60_000, height: 60_000, limit: limit))
        #expect(
            outcome(HostileImages.jxlDeclaring(width: 60_000, height: 60_000)).failure
                == .tooLarge(width: 60_000, height: 60_000, limit: limit))
    }

    /// libheif does not compare the stream's size with `ispe`, and libde265 allocates the stream's.
    @Test func aHEICWhoseStreamIsLargerThanItsBoxIsRefused() throws {
        let bytes = try HostileImages.heicDeclaring(width: 100, height: 100, in: "cat.heic")
        #expect(outcome(bytes).failure == .corrupt(.heic, detail: "an HEVC stream of 320×216 in an image of 100×100"))
        // The real file's stream is its own size, padded to whole coding blocks.
        let meta = try #require(HEIFDecoder.metaBox(try Fixtures.data("cat.heic")))
        #expect(ISOMediaHeader.codedSizeProblem(meta: meta, maxPixelCount: 1_000_000) == nil)
        #expect(ISOMediaHeader.codedSizeProblem(meta: meta, maxPixelCount: 10_000)?.codedWidth == 320)
    }

    @Test func aTIFFStripBombEndsInOneLineWithoutTheStrip() throws {
        // One 100-megapixel strip: libtiff may not allocate it (64 MB at most), so no row can be read.
        let started = ContinuousClock.now
        let result = outcome(HostileImages.tiff(width: 10_000, height: 10_000, rowsPerStrip: 10_000))
        switch result {
        case .success(let image): #expect(image.warning?.hasPrefix("damaged or truncated TIFF") == true)
        case .failure(let error): #expect(error.exitStatus == .badImage && !error.message.contains("\n"), "\(error.message)")
        }
        #expect(started.duration(to: .now) < .seconds(20))
    }

    @Test func aTIFFDirectoryThatPointsAtItselfIsOnePage() throws {
        let bytes = HostileImages.tiff(width: 16, height: 12, rowsPerStrip: 12, loops: true)
        #expect(try decoder.inspect(bytes).pageCount == 1)
        _ = outcome(bytes)
    }

    @Test func aQOIDeclaringMorePixelsThanItHoldsShowsTheRowsThereAre() throws {
        let image = try #require(try outcome(HostileImages.qoi(width: 10_000, height: 10_000, runs: 100)).get())
        #expect(image.warning == "truncated QOI; showing the rows that could be decoded")
        #expect(image.pixels.width * image.pixels.height < 100_000, "the output is the preview's size, not the declared one")
    }

    @Test func anIconListing65535PicturesIsReadUpToItsCap() throws {
        let bytes = try HostileImages.iconWithEntries(65_535)
        #expect(IconDirectory.read([UInt8](bytes))?.entries.count == IconDirectory.maxEntries)
        QuadrantPicture.expect(try #require(try outcome(bytes, request: DecodeRequest()).get()).pixels)
    }

    @Test func anAPNGFrameOffTheCanvasShowsTheDefaultImage() throws {
        let image = try #require(try outcome(try HostileImages.apngWithFrameOffCanvas(), request: DecodeRequest()).get())
        #expect(image.animation == nil)
        #expect(image.warning == "damaged APNG animation (a frame outside the canvas); showing its default image")
        QuadrantPicture.expect(image.pixels)
    }

    @Test func everyHostileFileEndsInOneLine() throws {
        for (name, bytes) in try HostileImages.all() {
            switch outcome(bytes) {
            case .success(let image): #expect(!(image.warning ?? "").contains("\n"), "\(name)")
            case .failure(let error): #expect(error.exitStatus == .badImage && !error.message.contains("\n"), "\(name): \(error.message)")
            }
        }
    }
}
