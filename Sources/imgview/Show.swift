import ArgumentParser
import ImgviewImaging
import ImgviewPipeline
import ImgviewProcess
import ImgviewSupport
import ImgviewTerminal
import ImgviewTerminalDetection

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

extension Imgview {
    /// `imgview show`: prints a preview of each image to stdout.
    struct Show: OneShotCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Print a preview of images, in characters or pixels, fitted to a box of cells.",
            discussion: """
                IMAGE is a file, a file:// or http(s) URL, a catalog name, or - for standard input. \
                The format is told from the bytes; JPEG, PNG, GIF, WebP, AVIF and BMP can be shown. An \
                animation plays on a terminal (its own number of times, or --loops, for at most \
                --duration; Ctrl-C stops it); into a pipe only its first frame is written. The preview \
                keeps the image's aspect inside the box (the terminal's size on a terminal, else 80x24).
                MODE auto (the default; or IMGVIEW_MODE) asks the terminal what it can draw and picks \
                kitty, iterm or sixel pixels where it can, else blocks when colours are available, \
                else ASCII; into a pipe it picks text. A mode named explicitly is used even into a pipe.
                Several images are printed one after another, each under a line ==> IMAGE <==; one \
                that fails is one line on stderr and the others still print (exit 1 when some failed).
                --grid prints a contact sheet instead: the images side by side in cells COLS across and \
                ROWS down to a sheet (the next sheet follows after an empty line), or auto for cells of \
                about 256 pixels square across the box; --label puts each name under its image. Local \
                files' thumbnails are read from and written to the freedesktop.org thumbnail folders \
                ($XDG_CACHE_HOME/thumbnails), shared with file managers.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("Files, file:// or http(s) URLs, catalog names, or - for standard input.", valueName: "image"))
        var images: [String] = []

        @Option(help: ArgumentHelp("The box to fit in (default: the terminal, else 80x24).", valueName: "COLSxROWS"))
        var size: CellBox?

        @Option(help: ArgumentHelp("auto, kitty, iterm, sixel, blocks or ascii (default: auto, or IMGVIEW_MODE).", valueName: "mode"))
        var mode: ModeChoice?

        @Option(
            name: .customLong("symbols"),
            help: ArgumentHelp(
                "The characters of a text preview: block (halves), quad (halves and quadrants), sextant, ascii, or auto (quad; sextant where the terminal answers that it draws them; the default, or IMGVIEW_SYMBOLS).",
                valueName: "symbols"))
        var symbolsOption: SymbolsChoice?

        @Option(
            name: .customLong("colors"),
            help: ArgumentHelp("none, 16, 256, full, or auto (from NO_COLOR, COLORTERM, TERM; the default).", valueName: "colors"))
        var colorsOption: ColorChoice?

        @Option(
            name: .customLong("cell-aspect"), help: ArgumentHelp("A cell's height divided by its width (default: 2).", valueName: "ratio"))
        var cellAspectOption: Double?

        @Option(
            name: .customLong("background"),
            help: ArgumentHelp(
                "The colour transparent pixels are drawn over (default: black; for pixels, the terminal's background).",
                valueName: "#rrggbb"))
        var backgroundOption: RGBColor?

        /// `--colors`, else the config file's, else auto.
        var colors: ColorChoice { ColorChoice.setting(colorsOption).value }
        /// `--cell-aspect`, else the config file's, else 2.
        var cellAspect: Double { Settings.shared.number("cell-aspect", commandLine: cellAspectOption, standard: 2) }
        /// `--background`, else the config file's, else none (black, or the terminal's for pixels).
        var background: RGBColor? {
            Settings.shared.resolve(
                "background", commandLine: backgroundOption.map { Optional($0) },
                fromFile: { value -> RGBColor?? in
                    guard let color = Settings.text(value).flatMap(RGBColor.init(hex:)) else { return nil }
                    return color
                }, standard: nil
            ).value
        }

        @Option(
            help: ArgumentHelp("Print a contact sheet: COLS images across, ROWS down to a sheet, or auto.", valueName: "COLSxROWS|auto"))
        var grid: SheetGrid?

        @Flag(help: "With --grid: each image's name under it.")
        var label = false

        @Option(help: ArgumentHelp("Play an animation for at most this many seconds (on a terminal).", valueName: "S"))
        var duration: Double?

        @Option(help: ArgumentHelp("Play an animation this many times (default: as often as the file says).", valueName: "N"))
        var loops: Int?

        @Option(
            help: ArgumentHelp(
                "Which page of a TIFF or HEIF of several to show (default: the first; past the last, the last).", valueName: "N"))
        var page: Int = 1

        @OptionGroup(title: "Limits") var decoding: DecodeOptions
        @OptionGroup(title: "Network Options") var network: ServiceOptions

        func validate() throws {
            try ImageArguments.validate(images)
            if let cellAspect = cellAspectOption, !(0.2...5).contains(cellAspect) {
                throw ValidationError("--cell-aspect must be between 0.2 and 5")
            }
            if let duration, !(duration > 0 && duration <= 86_400) {
                throw ValidationError("--duration takes seconds, more than 0 and at most 86400")
            }
            if let loops, !(1...1_000_000).contains(loops) { throw ValidationError("--loops takes a count from 1 to 1000000") }
            if label, grid == nil { throw ValidationError("--label goes with --grid") }
            if !(1...1_000_000).contains(page) { throw ValidationError("--page takes a page number from 1") }
        }

        func run() async throws {
            let command = self
            try await ProcessSignals.cancellingOnTermination(cacheDirectory: global.cacheDirectoryURL) { try await command.work() }
        }

        private func work() async throws {
            let loader = try network.makeLoader()
            let arguments = ImageArguments(images, global: global, loader: loader)
            let environment = ProcessInfo.processInfo.environment
            let choice = try ModeChoice.resolved(mode, environment: environment)
            let symbols = try SymbolsChoice.setting(symbolsOption, environment: environment).value
            let box = size ?? CellBox.terminalOrDefault()
            let colorMode = colors.resolved(environment: environment)
            let setup = PreviewSetup.forShow(
                choice, symbols: symbols, box: box, colors: colorMode, background: background, environment: environment)
            let options = RenderOptions(
                columns: box.columns, rows: box.rows, mode: setup.mode.text ?? .blocks, colors: colorMode, symbols: setup.symbols,
                cellAspect: cellAspect,
                background: background ?? RGBColor(red: 0, green: 0, blue: 0), graphics: setup.graphics,
                animates: isatty(STDOUT_FILENO) == 1, page: page - 1)
            let pipeline = try network.makePipeline(
                global: global, loader: loader, maxPixelCount: decoding.maxPixelCount,
                supplied: try arguments.suppliedImages(limit: network.maxFileSizeBytes))
            if let grid {
                let sheet = ContactSheet(
                    box: (box.columns, box.rows), grid: grid.size, cell: setup.graphics?.cell ?? Self.textCell(cellAspect: cellAspect),
                    labels: label)
                var cellOptions = options
                cellOptions.columns = sheet.cellWidth
                cellOptions.rows = sheet.imageRows
                cellOptions.animates = false
                cellOptions.graphics?.columns = sheet.cellWidth
                cellOptions.graphics?.rows = sheet.imageRows
                cellOptions.graphics?.movesCursor = false
                try await SheetPrinter(sheet: sheet, options: cellOptions, pipeline: pipeline).print(try await arguments.resolved())
                return
            }
            var shown: UInt32 = 0
            let waiting = WaitingProgress.forStandardError()
            try await arguments.forEach { argument, url in
                var imageOptions = options
                // Each image of its own kitty id: sending an id again would take the earlier image off the screen.
                shown += 1
                imageOptions.graphics?.imageID = shown
                // Nothing `show` prints needs the file's SHA-256.
                let request = PreviewRequest(url: url, options: imageOptions, modeCanChange: false, hashesLocalFile: false)
                let response = try await waiting.track(argument == "-" ? "standard input" : argument) { progress in
                    try await pipeline.preview(for: request, progress: progress)
                }
                if images.count > 1 {
                    StandardOutput.write("==> \(argument == "-" ? "standard input" : TerminalText.sanitized(argument)) <==\n")
                }
                if let warning = response.warning {
                    StandardError.print("imgview: \(TerminalText.sanitized(response.facts.location)): \(warning)")
                }
                if let animation = response.preview.animation, isatty(STDOUT_FILENO) == 1 {
                    let player = TerminalAnimationPlayer(
                        animation: animation, loops: loops, duration: duration.map { .milliseconds(Int64(($0 * 1000).rounded())) })
                    // The cursor is hidden while it plays: shown again should the process end abruptly.
                    let restoration = ProcessSignals.restoring(TerminalRestoration(bytes: player.terminalRestoration))
                    defer { restoration.end() }
                    try await player.play(write: { StandardOutput.write($0) }, jobControl: ProcessSignals.jobControl)
                } else if let graphics = response.preview.graphics {
                    Self.draw(graphics, onTerminal: isatty(STDOUT_FILENO) == 1, environment: environment)
                } else {
                    StandardOutput.write(AnsiPrinter().text(for: response.preview.grid))
                }
            }
        }

        /// Writes a pixel preview. On a terminal its rows are reserved first and the cursor put
        /// below them after, so the prompt comes under the image whatever the protocol did with the
        /// cursor; inside tmux an image passed through is put at the pane cursor's place in the outer
        /// terminal, which tmux does not do (tmux's own sixel is written plain, as to a terminal: tmux
        /// places and keeps it); a kitty image shown by Unicode placeholders is sent, then its text
        /// printed as a text preview's is. Into a pipe: the image and a new line.
        static func draw(_ graphics: GraphicsPreview, onTerminal: Bool, environment: [String: String]) {
            if let placeholders = graphics.placeholders {
                // Text: its rows scroll the terminal as any output does, and the cursor ends below them.
                let rows = (0..<placeholders.rows).flatMap { (row: Int) -> [UInt8] in placeholders.row(row) + [0x0A] }
                return StandardOutput.write(parts: graphics.bytes, rows)
            }
            guard onTerminal else { return StandardOutput.write(parts: graphics.bytes, [0x0A]) }
            let reservation = RowReservation(rows: graphics.layout.rows)
            guard TmuxPlacement.isPassedThrough(graphics.bytes) else {
                return StandardOutput.write(parts: reservation.start, graphics.bytes, reservation.end)
            }
            // The rows first: the cursor tmux reports must be at their top.
            StandardOutput.write(parts: reservation.start)
            let cursor = TmuxPane.outerCursor(environment: environment)
            let placed = cursor.map { TmuxPlacement.positioned(graphics.bytes, row: $0.row, column: $0.column) } ?? graphics.bytes
            StandardOutput.write(parts: placed, reservation.end)
        }
    }
}
