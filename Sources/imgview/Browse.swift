import ArgumentParser
import Foundation
import ImgviewCore
import ImgviewTerminal

extension Imgview {
    /// `imgview` / `imgview browse`: the ncurses browser over the catalog.
    struct Browse: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "browse",
            abstract: "Browse the catalog in the terminal (the default command).",
            discussion: """
                One tab per catalog image; the selected one is fetched through the caches and shown \
                as a text preview beside its metadata. Keys: ←/→ h/l Tab/Shift-Tab move between \
                tabs, 1-9 jump, r reloads bypassing the caches, x stops a transfer, d saves the image \
                into the working folder (never over an existing file), m switches blocks/ASCII, c \
                lists the disk cache, ? shows help, q or Esc quits.
                Needs a terminal; without one, use `imgview show` or `imgview get`.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup(title: "Limits") var decoding: DecodeOptions
        @OptionGroup(title: "Network Options") var network: ServiceOptions

        @Option(help: ArgumentHelp("ascii or blocks (default: blocks when the terminal has colours).", valueName: "mode"))
        var mode: RenderMode?

        @Option(name: .customLong("cell-aspect"), help: "A cell's height divided by its width.")
        var cellAspect: Double = 2.0

        func validate() throws {
            guard cellAspect > 0.2, cellAspect < 5 else { throw ValidationError("--cell-aspect must be between 0.2 and 5") }
        }

        func run() async throws {
            // Say so before doing any work that needs the network.
            guard CursesTerminal.hasTerminal else { throw TerminalError.notATerminal }
            if global.isOffline, case .remote(let url) = global.catalogSource { throw OfflineCatalogError(url: url) }
            // Only the first page: a paged catalog loads the next one when the user reaches its end.
            let loader = try network.makeLoader()
            let catalog = try await CatalogLoader(loader: loader).loadFirstPage(from: global.catalogSource)
            if catalog.images.isEmpty { throw CatalogError(origin: catalog.origin, problem: .empty) }
            let service = try network.makeService(global: global, loader: loader)
            let status = try await BrowserLauncher.run(
                catalog: catalog, service: service, mode: mode, cellAspect: cellAspect, maxPixelCount: decoding.maxPixelCount,
                offline: global.isOffline)
            if status != 0 { throw ExitCode(status) }
        }
    }
}
