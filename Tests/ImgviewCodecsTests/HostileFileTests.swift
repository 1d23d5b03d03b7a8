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

    /// `ispe` says each side in 32 bits: two of 2³² − 1 multiply past what an Int holds, and the
    /// image is too large, not what the product wraps to (a negative count, or memory to refuse).
    @Test func anISPEOfTheLargestSidesIsRefusedByItsSize() throws {
        let side = 0xFFFF_FFFF
        let limit = DecodeRequest.defaultMaxPixelCount
        for fixture in ["q.heic", "q-8bit.avif"] {
            let bytes = try HostileImages.heicDeclaring(width: side, height: side, in: fixture)
            #expect(outcome(bytes).failure == .tooLarge(width: side, height: side, limit: limit), "\(fixture)")
        }
    }

    /// A cache entry's probe is the header that decoders size their canvases and buffers by: one
    /// saying sides whose product passes what an Int holds is too large, not what the product wraps to.
    @Test(arguments: ["anim.gif", "anim.webp", "photo.jpg", "anim.jxl"])
    func aHeaderOfSidesMultiplyingPastAnIntIsRefused(name: String) throws {
        let bytes = try Fixtures.data(name)
        let header = ImageHeader(
            format: try #require(ImageFormat.sniff(bytes)), storedWidth: 1 << 32, storedHeight: 1 << 32, orientation: .up)
        #expect(throws: ImageDecodingError.tooLarge(width: 1 << 32, height: 1 << 32, limit: DecodeRequest.defaultMaxPixelCount)) {
            try decoder.decode(bytes, header: header, request: DecodeRequest())
        }
    }

    /// libheif 1.15 follows `dimg` and `auxl` references without end: an image made from itself,
    /// directly or through another, is refused before libheif decodes it.
    @Test func aHEICImageMadeFromItselfIsRefused() throws {
        #expect(outcome(HostileImages.heicDerivedFromItself).failure == .corrupt(.heic, detail: "an image made from itself"))
        #expect(
            outcome(try HostileImages.heicWhoseAlphaIsMadeFromItsImage()).failure == .corrupt(.heic, detail: "an image made from itself"))
        func bigEndian(_ value: Int, _ size: Int) -> [UInt8] { (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { bigEndian(8 + payload.count, 4) + Array(type.utf8) + payload }
        func meta(_ references: [(type: String, from: Int, to: [Int])]) -> [UInt8] {
            let iref = references.flatMap { reference in
                box(
                    reference.type,
                    bigEndian(reference.from, 2) + bigEndian(reference.to.count, 2) + reference.to.flatMap { bigEndian($0, 2) })
            }
            return box("meta", [0, 0, 0, 0] + box("iref", [0, 0, 0, 0] + iref))
        }
        #expect(ISOMediaHeader.decodingLoad(meta: meta([("dimg", 1, [2]), ("dimg", 2, [3]), ("dimg", 3, [1])])) == .cycle)
        #expect(.bounded == ISOMediaHeader.decodingLoad(meta: meta([("dimg", 1, [2, 3]), ("dimg", 2, [3])])))
        // Two images each the other's alpha; an alpha image derived from the image it belongs to.
        #expect(ISOMediaHeader.decodingLoad(meta: meta([("auxl", 1, [2]), ("auxl", 2, [1])])) == .cycle)
        #expect(ISOMediaHeader.decodingLoad(meta: meta([("auxl", 4, [2]), ("dimg", 4, [2])])) == .cycle)
        // A grid with an alpha image, as an encoder writes it; a thumbnail is never decoded by its image.
        #expect(.bounded == ISOMediaHeader.decodingLoad(meta: meta([("dimg", 1, [2, 3]), ("auxl", 4, [1]), ("dimg", 4, [5, 6])])))
        #expect(.bounded == ISOMediaHeader.decodingLoad(meta: meta([("thmb", 2, [1]), ("dimg", 1, [3])])))
        // A chain of 10 derivations; a grid naming 200 times a grid that names 200 tiles.
        #expect(ISOMediaHeader.decodingLoad(meta: meta((1...10).map { ("dimg", $0, [$0 + 1]) })) == .tooDeep)
        #expect(.bounded == ISOMediaHeader.decodingLoad(meta: meta((1...7).map { ("dimg", $0, [$0 + 1]) })))
        let amplifying = meta([("dimg", 1, Array(repeating: 2, count: 200)), ("dimg", 2, Array(repeating: 3, count: 200))])
        #expect(ISOMediaHeader.decodingLoad(meta: amplifying) == .tooManyDecodes)
        #expect(.bounded == ISOMediaHeader.decodingLoad(meta: meta([("dimg", 1, Array(3...130)), ("dimg", 2, [1])])))
    }

    /// libheif finds `meta` wherever it is among the top-level boxes; so do the checks, and a file
    /// with more boxes than they read is refused rather than decoded unchecked.
    @Test func aHEICWhoseMetaBoxComesLateIsStillChecked() throws {
        let bytes = [UInt8](try HostileImages.heicWhoseAlphaIsMadeFromItsImage())
        // After `ftyp`: 70 KB of `free` in front of `meta`, past where the probe's 64 KB would look.
        let ftypLength = Int(bytes[3])
        let free: [UInt8] = [0, 1, 0x11, 0x70] + Array("free".utf8) + [UInt8](repeating: 0, count: 70_000 - 8)
        var late = Array(bytes[..<ftypLength]) + free + Array(bytes[ftypLength...])
        // iloc's offsets are left pointing short: the file is refused before any item's data is read.
        let moved = Data(late)
        let meta = try #require(try HEIFDecoder.metaBox(moved))
        #expect(ISOMediaHeader.decodingLoad(meta: meta) == .cycle)
        #expect(outcome(moved).failure == .corrupt(.heic, detail: "an image made from itself"))
        // 20,000 empty boxes before `meta`: more than libheif reads, and refused without decoding.
        late =
            Array(bytes[..<ftypLength])
            + Array(repeating: [0, 0, 0, 8] + Array("free".utf8), count: ISOMediaHeader.maxBoxes).flatMap { $0 }
            + Array(bytes[ftypLength...])
        #expect(outcome(Data(late)).failure == .corrupt(.heic, detail: "more boxes than libheif reads"))
    }

    /// Every sequence parameter set libheif hands libde265, the configuration's or one in the
    /// item's data, is held to the request's pixel limit by our decoder plugin before libde265
    /// allocates its picture. q.heic's tile is coded at 64×64 (4,096 pixels).
    @Test func ourHEVCDecoderRefusesAParameterSetPastThePixelLimit() throws {
        let bytes = try Fixtures.data("q.heic")
        func decode(limit: Int) throws(ImageDecodingError) -> DecodedImage {
            try HEIFSession.with(bytes) { session throws(ImageDecodingError) in
                try session.decode(request: DecodeRequest(maxPixelCount: limit), planarChroma: nil)
            }
        }
        // libheif words the plugin's error its own way around our detail.
        let error = #expect(throws: ImageDecodingError.self) { try decode(limit: 4_095) }
        #expect(error?.message.hasSuffix("an HEVC stream past the pixel limit") == true, "\(String(describing: error))")
        #expect(try decode(limit: 4_096).pixels.width == 16)
    }

    /// libheif makes the canvas a grid's descriptor declares, not its `ispe`.
    @Test func aHEICGridDeclaringALargerCanvasThanItsImageIsRefused() throws {
        let bytes = try HostileImages.heicWithGridCanvas(width: 19_813, height: 27_974)
        #expect(outcome(bytes).failure == .corrupt(.heic, detail: "a canvas of 19813×27974 for an image of 16×12"))
        // Smaller is a lie too: the image would come out smaller than its header says (libFuzzer's find).
        #expect(
            outcome(try HostileImages.heicWithGridCanvas(width: 16, height: 5)).failure
                == .corrupt(.heic, detail: "a canvas of 16×5 for an image of 16×12"))
        #expect(try outcome(HostileImages.heicWithGridCanvas(width: 16, height: 12)).get().pixels.width == 16)
        #expect(
            ISOMediaHeader.canvasSize(type: "grid", descriptor: [0, 1, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0])
                == ImageDimensions(width: 65_536, height: 131_072))
        #expect(
            ISOMediaHeader.canvasSize(type: "iovl", descriptor: [0, 0] + [UInt8](repeating: 0xFF, count: 8) + [0, 40, 0, 30])
                == ImageDimensions(width: 40, height: 30))
    }

    /// libheif 1.15 reads an item's data from the file it was given whatever data reference the
    /// item names: libFuzzer's find, a thumbnail grid whose descriptor, read from the `ftyp` box
    /// through another file's reference, made a 28,009×26,161 canvas (18 s and 2 GB in libheif).
    @Test func aGridDescriptorIsReadWhereLibheifReadsItWhateverFileItNames() throws {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("ImgviewFuzzingTests/Corpus/heic/crash-grid-descriptor-in-another-file.heic")
        let bytes = try Data(contentsOf: corpus)
        #expect(outcome(bytes).failure == .corrupt(.heic, detail: "a canvas of 28009×26161 for an image of 26×32"))
    }

    /// libheif 1.15 reads `iloc` its own way: an index size in a version-1 box is not read, nor is
    /// a field of a size other than 4 or 8. The canvas check reads it the same way (libFuzzer's
    /// find: a version-1 `iloc` with index size 1 hid a 16×5 canvas behind a 16×12 `ispe`).
    @Test func itemLocationsAreReadAsLibheifReadsThem() throws {
        var bytes = [UInt8](try HostileImages.heicWithGridCanvas(width: 16, height: 5))
        let iloc = try #require(bytes.indices.dropLast(4).first { bytes[$0..<$0 + 4].elementsEqual("iloc".utf8) })
        // Version 1; offset and length sizes 4, base offset size 4, index size 0 → 1.
        #expect(bytes[iloc + 4] == 1 && bytes[iloc + 9] == 0x40)
        bytes[iloc + 9] = 0x41
        #expect(outcome(Data(bytes)).failure == .corrupt(.heic, detail: "a canvas of 16×5 for an image of 16×12"))
    }

    /// libheif 1.15 reads each `iref` reference's fields in a row, whatever size its box header
    /// says; so does the loop check (libFuzzer's find: a `dimg` box declaring 262,158 bytes).
    @Test func referencesAreReadAsLibheifReadsThemWhateverTheirBoxSizes() throws {
        var bytes = [UInt8](try Fixtures.data("q-alpha.heic"))
        // The alpha grid (4) made from the primary (2) instead of from item 3, its box size a lie.
        let reference: [UInt8] = [0, 0, 0, 14] + Array("dimg".utf8) + [0, 4, 0, 1, 0, 3]
        let start = try #require(
            bytes.indices.dropLast(reference.count).first { bytes[$0..<$0 + reference.count].elementsEqual(reference) })
        bytes.replaceSubrange(start..<(start + reference.count), with: [0, 4, 0, 14] + Array("dimg".utf8) + [0, 4, 0, 1, 0, 2])
        #expect(outcome(Data(bytes)).failure == .corrupt(.heic, detail: "an image made from itself"))
    }

    /// libheif does not compare the stream's size with `ispe`, and libde265 allocates the stream's.
    @Test func aHEICWhoseStreamIsLargerThanItsBoxIsRefused() throws {
        let bytes = try HostileImages.heicDeclaring(width: 100, height: 100, in: "cat.heic")
        #expect(outcome(bytes).failure == .corrupt(.heic, detail: "an HEVC stream of 320×216 in an image of 100×100"))
        // The real file's stream is its own size, padded to whole coding blocks.
        let meta = try #require(try HEIFDecoder.metaBox(try Fixtures.data("cat.heic")))
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
        let image = try outcome(HostileImages.qoi(width: 10_000, height: 10_000, runs: 100)).get()
        #expect(image.warning == "truncated QOI; showing the rows that could be decoded")
        #expect(image.pixels.width * image.pixels.height < 100_000, "the output is the preview's size, not the declared one")
    }

    @Test func anIconListing65535PicturesIsReadUpToItsCap() throws {
        let bytes = try HostileImages.iconWithEntries(65_535)
        #expect(IconDirectory.read([UInt8](bytes))?.entries.count == IconDirectory.maxEntries)
        QuadrantPicture.expect(try outcome(bytes, request: DecodeRequest()).get().pixels)
    }

    /// PNG allows 2³¹ − 1 pixels a side; an icon's PNG declaring more is no picture, and one at the
    /// limit is refused by its size, not by the product of two sides overflowing.
    @Test func anIconWhosePNGsDeclareSidesPastTheFormatsLimitEndsInOneLine() throws {
        #expect(IconDirectory.read([UInt8](HostileImages.iconWithPNGsDeclaring(side: 0xFFFF_FFFF)))?.entries == [])
        #expect(outcome(HostileImages.iconWithPNGsDeclaring(side: 0xFFFF_FFFF)).failure == .corrupt(.ico, detail: "no usable image header"))
        let side = Int(Int32.max)
        #expect(
            outcome(HostileImages.iconWithPNGsDeclaring(side: side)).failure
                == .tooLarge(width: side, height: side, limit: DecodeRequest.defaultMaxPixelCount))
    }

    /// H.265 codes each side in up to 32 bits; two such sequence parameter sets are compared
    /// without multiplying past `Int`.
    @Test func anHEVCConfigurationWithTwoHugeSequencesIsRead() {
        var bits: [Int] = []
        func put(_ value: Int, _ count: Int) { for shift in (0..<count).reversed() { bits.append(value >> shift & 1) } }
        func putExpGolomb(_ value: Int) {
            let coded = value + 1
            let length = Int.bitWidth - coded.leadingZeroBitCount
            put(0, length - 1)
            put(coded, length)
        }
        put(0, 8)  // vps id, one sub-layer, temporal nesting
        put(0, 96)  // general profile, tier and level
        putExpGolomb(0)  // sps id
        putExpGolomb(1)  // 4:2:0
        let side = 0xFFFF_FFFE
        putExpGolomb(side)
        putExpGolomb(side)
        while bits.count % 8 != 0 { bits.append(1) }
        let payload = stride(from: 0, to: bits.count, by: 8).map { start in bits[start..<start + 8].reduce(UInt8(0)) { $0 << 1 | UInt8($1) }
        }
        let unit: [UInt8] = [33 << 1, 1] + payload
        let length: [UInt8] = [UInt8(unit.count >> 8), UInt8(unit.count & 0xFF)]
        let record: [UInt8] = [UInt8](repeating: 0, count: 22) + [1] + [33, 0, 2] + length + unit + length + unit
        let size = HEVCSequence.pictureSize(inConfiguration: record)
        #expect(size?.width == side && size?.height == side)
        // An SPS filed in an array of picture parameter sets (type 34) still reaches libde265 as an SPS.
        let misfiled: [UInt8] = [UInt8](repeating: 0, count: 22) + [1] + [34, 0, 1] + length + unit
        #expect(HEVCSequence.pictureSize(inConfiguration: misfiled)?.width == side)
    }

    /// A bitmap's rows and the offset they start at are the file's to say: together past what an
    /// Int holds, whether the file is whole is unknown, and the decoder refuses the sides.
    @Test func aBitmapWhoseRowsEndPastAnIntEndsInOneLine() {
        let bytes = HostileImages.bitmapDeclaring(width: 2_147_483_646, height: 1_073_741_825, pixelOffset: 0xFFFF_FFFF)
        #expect(ImageCompleteness.verdict([UInt8](bytes), format: .bmp) == .unknown)
        #expect(outcome(bytes).failure == .corrupt(.bmp, detail: "a side longer than 16,777,216 pixels"))
    }

    /// A BigTIFF's sides take 63 bits each: their product, and even their megapixels, may pass what
    /// an Int holds. Such a page is too large, said in one line, not what the product wraps to.
    @Test func aBigTIFFWhoseSidesMultiplyPastAnIntIsRefusedByItsSize() {
        let limit = DecodeRequest.defaultMaxPixelCount
        for side in [1 << 32, (1 << 42) + 1, Int.max] {
            let error = outcome(HostileImages.bigTIFF(width: side, height: side)).failure
            #expect(error == .tooLarge(width: side, height: side, limit: limit), "\(side)")
            #expect(error?.message.hasPrefix("image too large: \(side)×\(side) is ") == true, "\(error?.message ?? "")")
            #expect(error?.message.contains("\n") == false)
        }
        #expect(
            ImageDecodingError.tooLarge(width: (1 << 42) + 1, height: (1 << 42) + 1, limit: limit).message
                == "image too large: 4398046511105×4398046511105 is 1.9342813113842864e+19 megapixels, the limit is 100")
    }

    /// A JPEG XL frame may last 2³² − 1 ticks of up to 1024 s, past what an Int64 counts in
    /// nanoseconds: each is shown for the hour a frame is held at most.
    @Test func aJPEGXLAnimationOfTheLongestFramesLastsAnHourAFrame() throws {
        let bytes = HostileImages.jxlAnimationOfLongestFrames
        let header = try decoder.inspect(bytes)
        #expect(header.animation?.frameCount == 2)
        #expect(header.animation?.duration == .seconds(2 * 3600))
        let image = try outcome(bytes, request: DecodeRequest()).get()
        #expect(image.animation?.frames.map(\.delay) == [.seconds(3600), .seconds(3600)])
    }

    /// libwebp counts an animation's time in an int of milliseconds, which wraps past 2³¹ − 1 (129
    /// frames of the most a frame says): each frame's delay is still its own.
    @Test func aWebPAnimationPastAnInt32OfMillisecondsKeepsEveryDelay() throws {
        let bytes = try HostileImages.webpAnimationOfLongestFrames(count: 130)
        let image = try outcome(bytes, request: DecodeRequest()).get()
        #expect(image.animation?.frames.count == 130)
        #expect(image.animation?.frames.allSatisfy { $0.delay == .milliseconds(0xFF_FFFF) } == true)
    }

    @Test func anAPNGFrameOffTheCanvasShowsTheDefaultImage() throws {
        let image = try outcome(try HostileImages.apngWithFrameOffCanvas(), request: DecodeRequest()).get()
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
    // MARK: Memory (issue 26)

    /// A request that does not animate (a pipe) gets the first frame, without a warning, and
    /// says so, so that a preview that animates decodes again.
    @Test(arguments: ["anim.gif", "anim.webp", "anim.avif", "anim.png"])
    func aRequestThatDoesNotAnimateDecodesTheFirstFrameOnly(name: String) throws {
        let bytes = try Fixtures.data(name)
        let still = try decoder.decode(bytes, request: DecodeRequest(animates: false))
        let animated = try decoder.decode(bytes, request: DecodeRequest())
        #expect(still.animation == nil && still.warning == nil && still.isFirstFrameOnly)
        #expect(still.pixels == animated.pixels)
        #expect(animated.animation != nil && !animated.isFirstFrameOnly)
    }

    /// A screen or canvas too large to compose at full size within 72 MB: the first frame,
    /// reduced as it is decoded; an animating request is told why the rest is left out.
    @Test(arguments: ["gif-10000-square.gif", "webp-animation-10000-square-5000-frames.webp"])
    func aCanvasTooLargeToComposeShowsItsFirstFrame(name: String) throws {
        let bytes = try HostileImages.memoryImageBytes(name)
        let image = try decoder.decode(bytes, request: DecodeRequest(minimumSize: (160, 96)))
        #expect(image.animation == nil && !image.isFirstFrameOnly)
        #expect(image.warning?.hasPrefix("animation cut short after 1 of ") == true, "\(image.warning ?? "")")
        #expect(image.warning?.contains("10000×10000") == true, "\(image.warning ?? "")")
        #expect(image.pixels.width < 1000 && image.pixels.height < 1000)
        // The first frame is one pixel at the top left corner, on transparency (its colour is
        // there, if too little of the block to show).
        #expect(image.pixels.pixel(x: 0, y: 0).0 > 0)
        #expect(image.pixels.pixel(x: image.pixels.width - 1, y: image.pixels.height - 1) == (0, 0, 0, 0))
        let piped = try decoder.decode(bytes, request: DecodeRequest(minimumSize: (160, 96), animates: false))
        #expect(piped.warning == nil && piped.isFirstFrameOnly && piped.pixels == image.pixels)
    }

    @Test func anRLEBitmapDeclaringTenThousandSquareIsReducedRowByRow() throws {
        let image = try decoder.decode(
            try HostileImages.memoryImageBytes("bmp-rle8-10000-square.bmp"), request: DecodeRequest(minimumSize: (160, 96)))
        #expect(image.warning == nil)
        #expect(image.pixels.width < 1000, "reduced as the rows came")
        // The bottom row starts with a run of 255 pixels of colour 1 (blue-ish, opaque): the first reduced pixel.
        #expect(image.pixels.pixel(x: 0, y: image.pixels.height - 1).3 > 0)
        #expect(image.pixels.pixel(x: image.pixels.width - 1, y: 0).3 == 0)
    }

    /// Full screen asks 1072×536 of a square image: twice that would keep a 4242² lossless WebP
    /// whole (72 MB) beside libwebp's 72 MB of pixels; the output shrinks to what still covers
    /// the box once. At 80×24 twice the box fits, and stays.
    @Test func besideLibwebpsPixelsTheOutputShrinksToFit() throws {
        let bytes = try HostileImages.memoryImageBytes("webp-lossless-4242-square.webp")
        let full = try decoder.decode(bytes, request: DecodeRequest(minimumSize: (1072, 536)))
        #expect(full.pixels.width == 1414 && full.pixels.height == 1414)
        let small = try decoder.decode(bytes, request: DecodeRequest(minimumSize: (320, 160)))
        #expect(small.pixels.width == 707)
    }

    @Test func aLosslessWebPWhoseWholeImageWouldPassTheLimitIsRefused() throws {
        let bytes = try HostileImages.memoryImageBytes("webp-lossless-16383x6000.webp")
        #expect(
            outcome(bytes).failure
                == .tooLargeToDecode(
                    what: "a lossless WebP", width: 16383, height: 6000, bytes: 16383 * 6000 * 4 + bytes.count, limit: 72_000_000))
        // Raising the pixel limit raises the memory allowed in proportion.
        let request = DecodeRequest(minimumSize: (160, 96), maxPixelCount: 700_000_000)
        #expect(request.maxDecodeBytes == 504_000_000)
    }

    /// A HEIC or JPEG XL whose header declares 81 MP, within the pixel limit, is refused before
    /// libheif or libjxl allocate anything: each decodes only whole, and holds several bytes a pixel.
    @Test func aHEICDeclaringAHugeCanvasIsRefusedBeforeDecoding() throws {
        let bytes = try HostileImages.heicDeclaring(width: 9_000, height: 9_000, in: "q.heic")
        let failure = try #require(outcome(bytes).failure)
        guard case .tooLargeToDecode(let what, let width, let height, let needed, let limit) = failure else {
            Issue.record("\(failure)")
            return
        }
        #expect(what == "a HEIC" && width == 9_000 && height == 9_000 && limit == DecodeRequest.defaultMaxDecodeBytes)
        // libheif's copy of the 4:2:0 planes alone is 1.5 bytes a pixel.
        #expect(needed >= 9_000 * 9_000 * 3 / 2, "\(needed)")
        #expect(failure.message.hasPrefix("image too large to decode: a HEIC of 9000×9000 needs"))
        #expect(failure.exitStatus == .badImage)
        // Allowed more memory, the file is still refused: its grid's canvas is the original 16×12.
        let allowed = outcome(bytes, request: DecodeRequest(minimumSize: (160, 96), maxDecodeBytes: needed))
        #expect(allowed.failure == .corrupt(.heic, detail: "a canvas of 16×12 for an image of 9000×9000"))
    }

    @Test func aJPEGXLDeclaringAHugeCanvasIsRefusedBeforeDecoding() throws {
        let failure = try #require(outcome(HostileImages.jxlDeclaring(width: 9_000, height: 9_000)).failure)
        // An RGB canvas and libjxl's own 2.75 bytes a pixel.
        let needed = 9_000 * 9_000 * (12 + JXLDecoder.libraryQuarters) / 4
        #expect(
            failure
                == .tooLargeToDecode(
                    what: "a JPEG XL", width: 9_000, height: 9_000, bytes: needed, limit: DecodeRequest.defaultMaxDecodeBytes))
        #expect(failure.exitStatus == .badImage && !failure.message.contains("\n"))
    }

    /// What each is counted at matches what was measured (DECISIONS.md): 4.25 bytes a pixel for a
    /// 12 MP 8-bit 4:2:0 HEIC of one stream, 5.75 for a JPEG XL without alpha; both fit the default.
    @Test func twelveMegapixelHEICAndJPEGXLFitTheDefaultBound() throws {
        let meta = try #require(try HEIFDecoder.metaBox(try Fixtures.data("q.heic")))
        #expect(ISOMediaHeader.largestCodedPicture(meta: meta) != nil, "the stream's size is read from its hvcC")
        let heic = HEIFDecoder.decodeBytes(width: 4032, height: 3024, meta: nil, planar: true)
        #expect(heic == 4032 * 3024 * 17 / 4)
        let jxl = JXLDecoder.decodeBytes(width: 4032, height: 3024, channels: 3)
        #expect(DecodeRequest().allowsDecodeBytes(heic) && DecodeRequest().allowsDecodeBytes(jxl))
        #expect(!DecodeRequest().allowsDecodeBytes(JXLDecoder.decodeBytes(width: 4500, height: 3500, channels: 3)))
    }

    /// With alpha, libheif holds both streams' planes and converts to RGBA through a plane of its
    /// own: 92 MB for a 12 MP file (112 MB for `show` in all), so one that size is refused.
    @Test func aTwelveMegapixelHEICWithAlphaIsCountedWithItsAlphaAndItsConversion() throws {
        let meta = try #require(try HEIFDecoder.metaBox(try Fixtures.data("q-alpha.heic")))
        #expect(ISOMediaHeader.codedSampleFormats(meta: meta).contains { $0.chroma == 0 }, "an alpha stream")
        let needed = HEIFDecoder.decodeBytes(width: 4000, height: 3000, meta: meta, planar: false)
        #expect(needed == 4000 * 3000 * 31 / 4, "\(needed)")
        #expect(!DecodeRequest().allowsDecodeBytes(needed))
    }
}
