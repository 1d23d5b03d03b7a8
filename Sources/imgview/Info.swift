import ArgumentParser
import Foundation
import ImgviewCodecs
import ImgviewCore

extension Imgview {
    /// `imgview info`: what an image is, from its header, without decoding the pixels.
    struct Info: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "info",
            abstract: "Show an image's format, pixel size, byte count, SHA-256, orientation and source.")

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
            let loaded = try await loadImageBytes(image, global: global, limits: network)
            let header = try loaded.droppedFromCacheOnFailure(global: global) { try ImageDecoder().inspect(loaded.bytes) }
            let info = ImageInfo(
                header: header, bytes: loaded.bytes, source: loaded.source, origin: loaded.origin, cacheState: loaded.cacheState)
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                StandardOutput.write(JSONText.escapingUnsafe(try encoder.encode(info)))
                StandardOutput.write("\n")
                return
            }
            let sizeText =
                header.orientation.swapsAxes
                ? "\(info.width)×\(info.height) (stored \(info.storedWidth)×\(info.storedHeight))" : "\(info.width)×\(info.height)"
            let rows = [
                ["format", info.format],
                ["size", sizeText],
                ["bytes", String(info.bytes)],
                ["sha256", info.sha256],
                ["orientation", header.orientation.exifDescription],
                ["source", info.source],
                ["origin", info.origin],
                ["cache", info.cacheState],
            ]
            StandardOutput.write(
                rows.map { $0[0].padding(toLength: 12, withPad: " ", startingAt: 0) + $0[1] }.joined(separator: "\n") + "\n")
        }
    }
}
