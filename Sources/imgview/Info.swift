import ArgumentParser
import ImgviewFetching
import ImgviewImaging
import ImgviewPipeline
import ImgviewProcess
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Imgview {
    /// `imgview info`: what images are, from their headers, without decoding the pixels.
    struct Info: OneShotCommand {
        static let configuration = CommandConfiguration(
            commandName: "info",
            abstract:
                "Show images' format, pixel size, frames, colour profile, damage, byte count, SHA-256, orientation, camera and source.",
            discussion: """
                IMAGE is a file, a file:// or http(s) URL, a catalog name, or - for standard input. \
                Several images are described one after another, each under a line ==> IMAGE <== (with \
                --json, as an array of objects); one that fails is one line on stderr and the others \
                are still described (exit 1 when some failed).
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("Files, file:// or http(s) URLs, catalog names, or - for standard input.", valueName: "image"))
        var images: [String] = []

        @Flag(help: "Print the facts as one JSON object.")
        var json = false

        @OptionGroup(title: "Network Options") var network: ServiceOptions

        func validate() throws {
            try ImageArguments.validate(images)
        }

        func run() async throws {
            let command = self
            try await ProcessSignals.cancellingOnTermination(cacheDirectory: global.cacheDirectoryURL) { try await command.work() }
        }

        private func work() async throws {
            let loader = try network.makeLoader()
            let arguments = ImageArguments(images, global: global, loader: loader)
            let pipeline = try network.makePipeline(
                global: global, loader: loader, supplied: try arguments.suppliedImages(limit: network.maxFileSizeBytes))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            // Several images as a JSON array, written as each is known; one image as one object, as ever.
            let array = json && images.count > 1
            var written = 0
            if array { StandardOutput.write("[") }
            defer { if array { StandardOutput.write("]\n") } }
            let waiting = WaitingProgress.forStandardError()
            try await arguments.forEach { argument, url in
                let info = try await waiting.track(argument == "-" ? "standard input" : argument) { progress in
                    try await pipeline.facts(for: ImageRequest(url: url), progress: progress)
                }
                if let damage = info.damage {
                    StandardError.print("imgview: \(TerminalText.sanitized(info.location)): warning: damaged: \(damage)")
                }
                if json {
                    if array, written > 0 { StandardOutput.write(",\n") }
                    StandardOutput.write(JSONText.escapingUnsafe(try encoder.encode(info)))
                    if !array { StandardOutput.write("\n") }
                } else {
                    if images.count > 1 {
                        if written > 0 { StandardOutput.write("\n") }
                        StandardOutput.write("==> \(argument == "-" ? "standard input" : TerminalText.sanitized(argument)) <==\n")
                    }
                    StandardOutput.write(Self.text(for: info))
                }
                written += 1
            }
        }

        /// The facts as aligned lines.
        private static func text(for info: ImageFacts) -> String {
            let sizeText =
                info.orientation.swapsAxes
                ? "\(info.width)×\(info.height) (stored \(info.storedWidth)×\(info.storedHeight))" : info.sizeText
            let pages = info.pageCount > 1 ? [["pages", "\(info.pageCount), shown one at a time"]] : []
            let damage = info.damage.map { [["damaged", $0]] } ?? []
            var camera: [[String]] = []
            if let exif = info.camera {
                let rows: [(String, String?)] = [
                    ("camera", exif.cameraText), ("lens", exif.lens), ("taken", exif.takenText), ("exposure", exif.exposureText),
                    ("focal", exif.focalLength.map { "\(ExifCamera.decimal($0)) mm" }), ("gps", exif.hasLocation ? "yes" : "no"),
                ]
                camera = rows.compactMap { label, value in value.map { [label, TerminalText.sanitized($0)] } }
            }
            let rows =
                [
                    ["format", info.format.displayName],
                    ["size", sizeText],
                    ["frames", info.framesText],
                ] + pages + damage + [
                    ["profile", TerminalText.sanitized(info.colorProfileText)],
                    ["bytes", String(info.byteCount)],
                    ["sha256", info.sha256],
                    ["orientation", info.orientation.exifDescription],
                ] + camera + [
                    ["source", TerminalText.sanitized(info.location)],
                    ["origin", info.source.rawValue],
                    ["cache", info.cacheState.description],
                ]
            let validators = [("etag", info.etag), ("modified", info.lastModified)].compactMap { name, value in
                value.map { [name, TerminalText.sanitized($0)] }
            }
            return (rows + validators).map { $0[0].padded(toLength: 12) + $0[1] }.joined(separator: "\n")
                + "\n"
        }
    }
}
