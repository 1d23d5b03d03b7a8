import ArgumentParser
import Foundation
import ImgviewCodecs
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
            let loaded = try await loadImageBytes(image, global: global, limits: network)
            let (format, header) = try loaded.droppedFromCacheOnFailure(global: global) { () throws -> (ImageFormat, ImageHeader?) in
                do {
                    let header = try ImageDecoder().inspect(loaded.bytes)
                    return (header.format, header)
                } catch ImageDecodingError.unsupportedFormat(let format) {
                    // Recognised, but its header says no size imgview can read: still worth describing.
                    return (format, nil)
                }
            }
            let info = ImageInfo(
                format: format, header: header, bytes: loaded.bytes, source: loaded.source, origin: loaded.origin,
                cacheState: loaded.cacheState)
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                StandardOutput.write(try encoder.encode(info))
                StandardOutput.write("\n")
                return
            }
            var sizeText = "unknown"
            if let header {
                sizeText =
                    header.orientation.swapsAxes
                    ? "\(header.uprightSize.width)×\(header.uprightSize.height) (stored \(header.storedWidth)×\(header.storedHeight))"
                    : "\(header.storedWidth)×\(header.storedHeight)"
            }
            let rows = [
                ["format", info.previewable ? info.format : "\(info.format) (recognised; imgview cannot preview it)"],
                ["size", sizeText],
                ["frames", info.framesText],
                ["bytes", String(info.bytes)],
                ["sha256", info.sha256],
                ["orientation", header?.orientation.exifDescription ?? "unknown"],
                ["source", info.source],
                ["origin", info.origin],
                ["cache", info.cacheState],
            ]
            StandardOutput.write(
                rows.map { $0[0].padding(toLength: 12, withPad: " ", startingAt: 0) + $0[1] }.joined(separator: "\n") + "\n")
        }
    }
}
