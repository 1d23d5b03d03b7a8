import ArgumentParser
import Foundation
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
                first frame). The preview keeps the image's aspect inside the box (the terminal's \
                size on a terminal, else 80x24).
                MODE auto (the default; or IMGVIEW_MODE) asks the terminal what it can draw and picks \
                kitty, iterm or sixel pixels where it can, else blocks when colours are available, \
                else ASCII; into a pipe it picks text. A mode named explicitly is used even into a pipe.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "A file, a file:// or http(s) URL, or a catalog name.")
        var image: String

        @Option(help: ArgumentHelp("The box to fit in (default: the terminal, else 80x24).", valueName: "COLSxROWS"))
        var size: CellBox?

        @Option(help: ArgumentHelp("auto, kitty, iterm, sixel, blocks or ascii (default: auto, or IMGVIEW_MODE).", valueName: "mode"))
        var mode: ModeChoice?

        @Option(help: ArgumentHelp("none, 16, 256, full, or auto (from NO_COLOR, COLORTERM, TERM).", valueName: "colors"))
        var colors: ColorChoice = .auto

        @Option(name: .customLong("cell-aspect"), help: "A cell's height divided by its width.")
        var cellAspect: Double = 2.0

        @Option(
            help: ArgumentHelp(
                "The colour transparent pixels are drawn over (default: black; for pixels, the terminal's background).",
                valueName: "#rrggbb"))
        var background: RGBColor?

        @OptionGroup(title: "Limits") var decoding: DecodeOptions
        @OptionGroup(title: "Network Options") var network: ServiceOptions

        func validate() throws {
            guard cellAspect > 0.2, cellAspect < 5 else { throw ValidationError("--cell-aspect must be between 0.2 and 5") }
        }

        func run() async throws {
            let command = self
            try await SignalCatcher.cancellingOnSignal(cacheDirectory: global.cacheDirectoryURL) { try await command.work() }
        }

        private func work() async throws {
            let environment = ProcessInfo.processInfo.environment
            let choice = try ModeChoice.resolved(mode, environment: environment)
            let loader = try network.makeLoader()
            let url = try await imageURL(for: image, global: global, loader: loader)
            let box = size ?? CellBox.terminalOrDefault()
            let colorMode = colors.resolved(environment: environment)
            let setup = PreviewSetup.forShow(choice, box: box, colors: colorMode, background: background, environment: environment)
            let options = RenderOptions(
                columns: box.columns, rows: box.rows, mode: setup.mode.text ?? .blocks, colors: colorMode, cellAspect: cellAspect,
                background: background ?? RGBColor(red: 0, green: 0, blue: 0), graphics: setup.graphics)
            let pipeline = try network.makePipeline(global: global, loader: loader, maxPixelCount: decoding.maxPixelCount)
            let response = try await pipeline.preview(for: PreviewRequest(url: url, options: options))
            if let warning = response.warning {
                StandardError.print("imgview: \(TerminalText.sanitized(response.facts.location)): \(warning)")
            }
            if let graphics = response.preview.graphics {
                // The image, then a new line below it, where the prompt comes back.
                StandardOutput.write(Data(graphics.bytes + [0x0A]))
            } else {
                StandardOutput.write(AnsiPrinter().text(for: response.preview.grid))
            }
        }
    }
}
