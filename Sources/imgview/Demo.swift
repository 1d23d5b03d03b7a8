import ArgumentParser
import ImgviewFetching
import ImgviewImaging
import ImgviewPipeline
import ImgviewProcess
import ImgviewSupport
import ImgviewTerminal

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

extension Imgview {
    /// `imgview demo`: the bundled images over the loopback server, through the whole pipeline.
    struct Demo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "demo",
            abstract: "Serve the bundled images on 127.0.0.1 and browse them through the full pipeline.",
            discussion: """
                Needs no internet: the images in Assets/ are served over HTTP on loopback, the \
                catalog is read from the server, and the browser opens over it, fetching through \
                the caches (a throwaway cache folder unless --cache-dir or IMGVIEW_CACHE_DIR is given).
                Without a terminal, or with --report, every image is instead fetched twice and a \
                table shows where each came from and how long it took, then a preview of each.
                """)

        @OptionGroup var global: GlobalOptions

        @Option(help: ArgumentHelp("The box each preview fits in.", valueName: "COLSxROWS"))
        var size = CellBox(columns: 48, rows: 14)

        @Option(
            name: .customLong("colors"),
            help: ArgumentHelp("none, 16, 256, full, or auto (from NO_COLOR, COLORTERM, TERM; the default).", valueName: "colors"))
        var colorsOption: ColorChoice?

        /// `--colors`, else the config file's, else auto.
        var colors: ColorChoice { ColorChoice.setting(colorsOption).value }

        @Option(
            help: ArgumentHelp(
                "The browser's mode: auto, kitty, iterm, sixel, blocks or ascii (default: auto, or IMGVIEW_MODE); the report prints text.",
                valueName: "mode"))
        var mode: ModeChoice?

        @Flag(help: "Print the fetch table and previews instead of opening the browser.")
        var report = false

        func run() async throws {
            let mode = try ModeChoice.resolved(mode, environment: ProcessInfo.processInfo.environment)
            let assets = try BundledAssets.folder()
            // One client for the catalog and the images, as every command has: libcurl unless IMGVIEW_HTTP
            // says otherwise.
            let loader = try HTTPClient.makeLoader()
            // The server is a program of its own (ServerProgram), stopped and reaped however this
            // command ends; it serves the images and the curated catalog (names, titles), whose
            // relative URLs resolve against it.
            let server = try ServerProgram.Child(arguments: ["demo", assets.path])
            defer { server.stop() }
            guard let line = server.readLine(), let catalogURL = URL(string: line) else {
                server.stop()
                throw ServerProgram.CannotStart(reason: "it printed no address")
            }
            let catalog = try await CatalogLoader(loader: loader).loadAll(from: .remote(catalogURL))

            let explicitCache = global.cacheDirectorySetting.source != .standard
            // A throwaway cache goes on every exit path: the end, a signal, a reader that went away (`| head`).
            let throwaway = explicitCache ? nil : try Self.throwawayFolder()
            defer { throwaway?.remove() }
            let cacheFolder = throwaway.map { URL(fileURLWithPath: $0.path) } ?? global.cacheDirectoryURL
            let diskCache = try DiskCache(directory: cacheFolder, makingFolder: throwaway == nil)
            let fetcher = ImageFetcher(configuration: .init(dataLoader: loader, diskCache: diskCache))

            if !report, CursesTerminal.hasTerminal {
                try await BrowserLauncher.run(catalog: catalog, fetcher: fetcher, mode: mode, cellAspect: 2, offline: false)
                server.stop()
                return
            }

            StandardOutput.write("imgview demo: \(catalog.images.count) images served at \(catalogURL.absoluteString)\n\n")
            let pipeline = ServiceOptions.makePipeline(fetcher: fetcher, offline: false)
            let colorMode = colors.resolved(environment: ProcessInfo.processInfo.environment)
            let options = RenderOptions(
                columns: size.columns, rows: size.rows, mode: colorMode == .none || mode == .ascii ? .ascii : .blocks, colors: colorMode,
                cellAspect: 2,
                background: RGBColor(red: 0, green: 0, blue: 0))
            var rows: [[String]] = []
            var previews: [(AppImage, PreviewResponse)] = []
            for pass in ["first", "second"] {
                for image in catalog.images {
                    let started = ContinuousClock.now
                    let response = try await pipeline.preview(for: PreviewRequest(url: image.url, options: options))
                    let elapsed = started.duration(to: .now)
                    if pass == "second" { previews.append((image, response)) }
                    rows.append([
                        pass, image.name, response.facts.format.displayName, ByteCount.format(response.facts.byteCount),
                        response.facts.source.displayName, String(printf: "%.1f ms", elapsed.milliseconds),
                        TerminalText.sanitized(image.displayTitle),
                    ])
                }
            }
            StandardOutput.write(TextTable(header: ["PASS", "NAME", "FORMAT", "BYTES", "SOURCE", "TIME", "TITLE"], rows: rows).rendered)
            let requests = server.stop().filter { $0.hasPrefix("/images/") }
            StandardOutput.write(
                "\nThe server saw \(requests.count) image requests for \(rows.count) fetches; the rest came from the caches.\n")

            for (image, response) in previews {
                StandardOutput.write("\n\(image.name) — \(TerminalText.sanitized(image.displayTitle))\n")
                if let warning = response.warning { StandardError.print("imgview: \(image.name): \(warning)") }
                StandardOutput.write(AnsiPrinter().text(for: response.preview.grid))
            }
        }
    }
}

extension Imgview.Demo {
    /// A private temporary folder for the demo's cache, removed on every exit path.
    static func throwawayFolder() throws -> TemporaryFolder {
        do {
            return try ProcessSignals.makeTemporaryFolder(prefix: "imgview-demo")
        } catch {
            throw ThrowawayFolderError(reason: String(describing: error))
        }
    }

    struct ThrowawayFolderError: UserFacingError {
        let reason: String
        var message: String { "cannot make a temporary folder for the demo's cache: \(TerminalText.sanitized(reason))" }
        var exitStatus: ExitStatus { .storage }
    }
}

extension Duration {
    /// The duration in milliseconds, for display.
    var milliseconds: Double {
        seconds * 1000
    }
}
