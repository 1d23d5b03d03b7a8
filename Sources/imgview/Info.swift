import ArgumentParser
import Foundation
import ImgviewCore

extension Imgview {
    /// `imgview info`: what an image is, from its header, without decoding the pixels.
    struct Info: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "info",
            abstract: "Show an image's format, pixel size, frames, byte count, SHA-256, orientation and source.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "A file, a file:// or http(s) URL, or a catalog name.")
        var image: String

        @Flag(help: "Print the facts as one JSON object.")
        var json = false

        @OptionGroup(title: "Network Options") var network: ServiceOptions

        func run() async throws {
            let command = self
            try await SignalCatcher.cancellingOnSignal(cacheDirectory: global.cacheDirectoryURL) { try await command.work() }
        }

        private func work() async throws {
            let loader = try network.makeLoader()
            let url = try await imageURL(for: image, global: global, loader: loader)
            let info = try await network.makePipeline(global: global, loader: loader).facts(for: ImageRequest(url: url))
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                StandardOutput.write(JSONText.escapingUnsafe(try encoder.encode(info)))
                StandardOutput.write("\n")
                return
            }
            let sizeText =
                info.orientation.swapsAxes
                ? "\(info.width)×\(info.height) (stored \(info.storedWidth)×\(info.storedHeight))" : "\(info.width)×\(info.height)"
            let rows = [
                [
                    "format",
                    info.format.isPreviewable
                        ? info.format.displayName : "\(info.format.displayName) (recognised; imgview cannot preview it)",
                ],
                ["size", sizeText],
                ["frames", info.framesText],
                ["bytes", String(info.byteCount)],
                ["sha256", info.sha256],
                ["orientation", info.orientation.exifDescription],
                ["source", TerminalText.sanitized(info.location)],
                ["origin", info.source.rawValue],
                ["cache", info.cacheState.description],
            ]
            let validators = [("etag", info.etag), ("modified", info.lastModified)].compactMap { name, value in
                value.map { [name, TerminalText.sanitized($0)] }
            }
            StandardOutput.write(
                (rows + validators).map { $0[0].padding(toLength: 12, withPad: " ", startingAt: 0) + $0[1] }.joined(separator: "\n") + "\n")
        }
    }
}
