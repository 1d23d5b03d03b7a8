import ArgumentParser
import Foundation
import ImgviewCodecs
import ImgviewCore

extension Imgview {
    /// `imgview show`: prints a text preview of one image to stdout.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Print a text preview of an image, fitted to a box of cells.",
            discussion: """
                IMAGE is a file, a file:// or http(s) URL, or a catalog name. The format is told \
                from the bytes; JPEG, PNG, GIF, WebP, AVIF and BMP can be shown (an animation's \
                first frame). The preview keeps the image's aspect inside the box (the \
                terminal's size on a terminal, else 80x24).
                Without --mode, blocks are used when colours are, ASCII otherwise.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "A file, a file:// or http(s) URL, or a catalog name.")
        var image: String

        @Option(help: ArgumentHelp("The box to fit in (default: the terminal, else 80x24).", valueName: "COLSxROWS"))
        var size: CellBox?

        @Option(help: ArgumentHelp("ascii or blocks.", valueName: "mode"))
        var mode: RenderMode?

        @Option(help: ArgumentHelp("none, 16, 256, full, or auto (from NO_COLOR, COLORTERM, TERM).", valueName: "colors"))
        var colors: ColorChoice = .auto

        @Option(name: .customLong("cell-aspect"), help: "A cell's height divided by its width.")
        var cellAspect: Double = 2.0

        @Option(help: ArgumentHelp("The colour transparent pixels are drawn over.", valueName: "#rrggbb"))
        var background: RGBColor = RGBColor(red: 0, green: 0, blue: 0)

        @OptionGroup(title: "Limits") var decoding: DecodeOptions
        @OptionGroup(title: "Network Options") var network: ServiceOptions

        func validate() throws {
            guard cellAspect > 0.2, cellAspect < 5 else { throw ValidationError("--cell-aspect must be between 0.2 and 5") }
        }

        func run() async throws {
            let loaded = try await loadImageBytes(image, global: global, limits: network)
            let box = size ?? CellBox.terminalOrDefault()
            let colorMode = colors.resolved(environment: ProcessInfo.processInfo.environment)
            let options = RenderOptions(
                columns: box.columns, rows: box.rows, mode: mode ?? (colorMode == .none ? .ascii : .blocks),
                colors: colorMode, cellAspect: cellAspect, background: background)
            let text = try loaded.droppedFromCacheOnFailure(global: global) {
                try Self.preview(of: loaded.bytes, options: options, maxPixelCount: decoding.maxPixelCount) { warning in
                    StandardError.print("imgview: \(TerminalText.sanitized(loaded.source)): \(warning)")
                }
            }
            StandardOutput.write(text)
        }

        /// Decodes at the smallest scale the preview needs and renders it to text.
        static func preview(
            of bytes: Data, options: RenderOptions, maxPixelCount: Int, warn: (String) -> Void
        ) throws -> String {
            let decoder = ImageDecoder()
            let header = try decoder.inspect(bytes)
            let renderer = PreviewRenderer(options: options)
            let upright = header.uprightSize
            let request = DecodeRequest(
                minimumSize: renderer.minimumDecodeSize(width: upright.width, height: upright.height),
                maxPixelCount: maxPixelCount)
            let decoded = try decoder.decode(bytes, header: header, request: request)
            if let warning = decoded.warning { warn(warning) }
            return AnsiPrinter().text(for: renderer.render(decoded.pixels))
        }
    }
}
