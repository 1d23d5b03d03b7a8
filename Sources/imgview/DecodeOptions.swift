import ArgumentParser
import ImgviewImaging

/// The decoding limit of commands that turn images into pixels (`show`, `browse`).
struct DecodeOptions: ParsableArguments {
    @Option(
        name: .customLong("max-megapixels"),
        help: "Refuse images that declare more pixels than this, before decoding.")
    var maxMegapixels: Int = DecodeRequest.defaultMaxPixelCount / 1_000_000

    func validate() throws {
        guard (1...10_000).contains(maxMegapixels) else { throw ValidationError("--max-megapixels takes 1 to 10000") }
    }

    var maxPixelCount: Int { maxMegapixels * 1_000_000 }
}
