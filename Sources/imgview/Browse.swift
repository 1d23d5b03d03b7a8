import ArgumentParser
import Foundation
import ImgviewFetching
import ImgviewSupport
import ImgviewTerminal

extension Imgview {
    /// `imgview` / `imgview browse [PATH|DIR|URL|NAME…]`: the ncurses browser over the catalog, or
    /// over the images named on the command line.
    struct Browse: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "browse",
            abstract: "Browse images in the terminal: files, folders, URLs, or the catalog (the default command).",
            discussion: """
                With no arguments, one tab per catalog image. With arguments, one tab per image they \
                name: files, the images in folders (told by their first bytes, not their names; in \
                natural order, 2 before 10; --recursive for subfolders), http(s) URLs, catalog names. \
                Local files are read where they are, never copied into the cache. The selected image \
                is fetched through the caches and previewed beside its metadata: MODE auto (the default; or \
                IMGVIEW_MODE) asks the terminal and draws real pixels (kitty, iterm, sixel) where it \
                can, else blocks, or ASCII without colours.
                Keys: ←/→ h/l Tab/Shift-Tab move between tabs, Home/End first and last, PgUp/PgDn a \
                strip of tabs, 1-9 (more digits for 10 on) go to a tab, / finds a tab by name, f gives \
                the preview the whole width, + and - zoom, H J K L (Shift+arrows) pan, 0 back to fit, \
                r reloads bypassing the caches, x stops a transfer, d saves the image into the working \
                folder (never over an existing file), m cycles the preview modes this terminal shows (its pixel modes, blocks, ASCII), c lists the disk cache \
                (Del removes an entry), Ctrl-Z suspends, ? shows help, q or Esc quits. The mouse \
                selects tabs, the wheel moves between them, a click on a key hint does what the key does.
                Needs a terminal; without one, use `imgview show` or `imgview get`.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup(title: "Limits") var decoding: DecodeOptions
        @OptionGroup(title: "Network Options") var network: ServiceOptions

        @Argument(help: ArgumentHelp("Files, folders, URLs or catalog names to browse instead of the catalog.", valueName: "image"))
        var images: [String] = []

        @Flag(name: .shortAndLong, help: "Also list the images in the folders' subfolders.")
        var recursive = false

        @Option(help: ArgumentHelp("auto, kitty, iterm, sixel, blocks or ascii (default: auto, or IMGVIEW_MODE).", valueName: "mode"))
        var mode: ModeChoice?

        @Option(name: .customLong("cell-aspect"), help: "A cell's height divided by its width.")
        var cellAspect: Double = 2.0

        func validate() throws {
            guard cellAspect > 0.2, cellAspect < 5 else { throw ValidationError("--cell-aspect must be between 0.2 and 5") }
            if images.contains("-") {
                throw ValidationError("the browser reads keys from standard input, so it cannot read an image there; use 'imgview show -'")
            }
        }

        func run() async throws {
            // A usage error first, as a bad --mode is; then say so before doing any work that needs the network.
            let mode = try ModeChoice.resolved(mode, environment: ProcessInfo.processInfo.environment)
            guard CursesTerminal.hasTerminal else { throw TerminalError.notATerminal }
            // One client for the catalog and the images: one multi handle, connections shared.
            let loader = try network.makeLoader()
            let (catalog, moreTabs, notice) = try await tabs(loader: loader)
            let fetcher = try network.makeFetcher(global: global, loader: loader)
            let status = try await BrowserLauncher.run(
                catalog: catalog, moreTabs: moreTabs, fetcher: fetcher, mode: mode, cellAspect: cellAspect,
                maxPixelCount: decoding.maxPixelCount, offline: global.isOffline, notice: notice)
            if status != 0 { throw ExitCode(status) }
        }

        /// The status line's words for what was left out: `left out: a.jpg (not found), notes.txt (not an image)`.
        static func notice(for leftOut: [LeftOutArgument]) -> String? {
            guard !leftOut.isEmpty else { return nil }
            let named = leftOut.map { item in
                let why =
                    switch item.reason {
                    case .notFound: "not found"
                    case .notAnImage: "not an image"
                    case .unreadable: "cannot be read"
                    }
                return "\(TerminalText.sanitized(item.argument)) (\(why))"
            }
            return "left out: " + named.joined(separator: ", ")
        }

        /// The tabs to open with, the rest of a listing still under way, and what the browser says as it opens.
        private func tabs(loader: any DataLoading) async throws -> (Catalog, AsyncStream<[AppImage]>?, String?) {
            guard !images.isEmpty else {
                if global.isOffline, case .remote(let url) = global.catalogSource { throw OfflineCatalogError(url: url) }
                // Only the first page: a paged catalog loads the next one when the user reaches its end.
                let catalog = try await CatalogLoader(loader: loader).loadFirstPage(from: global.catalogSource)
                if catalog.images.isEmpty { throw CatalogError(origin: catalog.origin, problem: .empty) }
                return (catalog, nil, nil)
            }
            let catalog = CatalogOnce(global: global, loader: loader)
            let resolved = try await BrowseSource.resolve(images) { try await catalog.value() }
            // The first images are enough to open with; a big folder goes on being read behind the browser.
            let (first, rest) = await BackgroundListing.start(ImageListing(sources: resolved.sources, recursive: recursive))
            if first.isEmpty {
                if images.count == 1, let only = resolved.leftOut.first { throw only.error }
                throw NoImagesError(arguments: images)
            }
            // What was left out is said before the browser takes the screen (so it is still there
            // after), and in its status line.
            for leftOut in resolved.leftOut { StandardError.print("imgview: \(leftOut.error.message); left out") }
            return (Catalog(images: first, origin: .commandLine), rest, Self.notice(for: resolved.leftOut))
        }
    }
}
