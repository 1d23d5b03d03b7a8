import ArgumentParser
import ImgviewImaging

/// The decoding limit of commands that turn images into pixels (`show`, `browse`).
struct DecodeOptions: ParsableArguments {
    @Option(
        name: .customLong("max-megapixels"),
        help: ArgumentHelp(
            "Refuse images that declare more pixels than this, before decoding (default: \(DecodeRequest.defaultMaxPixelCount / 1_000_000)).",
            valueName: "n"))
    var maxMegapixelsOption: Int?

    func validate() throws {
        if let value = maxMegapixelsOption, !(1...10_000).contains(value) { throw ValidationError("--max-megapixels takes 1 to 10000") }
    }

    /// `--max-megapixels`, else the config file's, else the default.
    var maxMegapixels: Int {
        Settings.shared.integer(
            "max-megapixels", commandLine: maxMegapixelsOption, standard: DecodeRequest.defaultMaxPixelCount / 1_000_000)
    }

    var maxPixelCount: Int { maxMegapixels * 1_000_000 }
}
