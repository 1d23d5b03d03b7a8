import ArgumentParser
import ImgviewBrowser
import ImgviewFetching
import ImgviewTerminal

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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
                r reloads bypassing the caches, x stops a transfer, m cycles the preview modes this \
                terminal shows (its pixel modes, blocks, ASCII), c lists the disk cache (Del removes \
                an entry), Ctrl-Z suspends, ? shows help, q or Esc quits. t marks an image (T all, * \
                inverts); these act on the marked images, or the selected one: d saves into the \
                working folder (never over an existing file), y copies paths to the clipboard (OSC \
                52), o opens in the desktop's viewer ($IMGVIEW_OPENER, else xdg-open), D or Del moves \
                to the trash (u undoes), Ctrl-X then a key runs $XDG_CONFIG_HOME/imgview/key-handler \
                KEY with the paths on its input. S starts or stops a slideshow (any key pauses it), O \
                sorts by the next order. Keys can be bound anew in the config file's [keys] table \
                (see `imgview config`). The mouse selects tabs, the wheel moves between them, a \
                click on a key hint does what the key does.
                Needs a terminal; without one, use `imgview show` or `imgview get`.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup(title: "Limits") var decoding: DecodeOptions
        @OptionGroup(title: "Network Options") var network: ServiceOptions

        @Argument(help: ArgumentHelp("Files, folders, URLs or catalog names to browse instead of the catalog.", valueName: "image"))
        var images: [String] = []

        @Flag(
            name: [.short, .customLong("recursive")], inversion: .prefixedNo,
            help: "Also list the images in the folders' subfolders (default: no).")
        var recursiveOption: Bool?

        @Option(help: ArgumentHelp("auto, kitty, iterm, sixel, blocks or ascii (default: auto, or IMGVIEW_MODE).", valueName: "mode"))
        var mode: ModeChoice?

        @Option(
            name: .customLong("cell-aspect"), help: ArgumentHelp("A cell's height divided by its width (default: 2).", valueName: "ratio"))
        var cellAspectOption: Double?

        @Option(
            name: .customLong("sort"),
            help: ArgumentHelp(
                "name (as listed: folders in natural order, arguments as given; the default), date (taken, from EXIF; else modified), mtime or size.",
                valueName: "order"))
        var sortOption: ImageOrderChoice?

        @Flag(name: .customLong("reverse"), inversion: .prefixedNo, help: "The order backwards (default: no).")
        var reverseOption: Bool?

        @Flag(help: "A random order.")
        var shuffle = false

        @Option(
            help: ArgumentHelp(
                "Start a slideshow: the next image every SECONDS (an animation plays to its end first); S stops it, any key pauses it.",
                valueName: "seconds"))
        var slideshow: Double?

        /// `--recursive`/`--no-recursive`, else the config file's, else no.
        var recursive: Bool { Settings.shared.boolean("recursive", commandLine: recursiveOption, standard: false) }
        /// `--cell-aspect`, else the config file's, else 2.
        var cellAspect: Double { Settings.shared.number("cell-aspect", commandLine: cellAspectOption, standard: 2) }

        /// `--shuffle`, `--sort` and `--reverse`, else the config file's, else the listing's order.
        var ordering: ImageOrdering {
            let settings = Settings.shared
            let order = settings.resolve(
                "sort", commandLine: shuffle ? .shuffle : sortOption?.order,
                fromFile: { Settings.text($0).flatMap(ImageOrder.init(rawValue:)) }, standard: .name
            ).value
            return ImageOrdering(order: order, isReversed: settings.boolean("reverse", commandLine: reverseOption, standard: false))
        }

        /// The slideshow: `--slideshow` starts one at its interval; S uses the config file's interval, else 5 seconds.
        var slideshowSetting: Slideshow {
            let seconds = slideshow ?? Settings.shared.number("slideshow-interval", commandLine: nil, standard: 5)
            return Slideshow(interval: .milliseconds(Int64((seconds * 1000).rounded())), status: slideshow == nil ? .off : .running)
        }

        func validate() throws {
            if let cellAspect = cellAspectOption, !(0.2...5).contains(cellAspect) {
                throw ValidationError("--cell-aspect must be between 0.2 and 5")
            }
            if shuffle, sortOption != nil { throw ValidationError("--shuffle is an order of its own: give it or --sort, not both") }
            if let slideshow, !(0.1...86_400).contains(slideshow) { throw ValidationError("--slideshow takes seconds, from 0.1 to 86400") }
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
            let (catalog, moreTabs) = try await tabs(loader: loader)
            let fetcher = try network.makeFetcher(global: global, loader: loader)
            try await BrowserLauncher.run(
                catalog: catalog, moreTabs: moreTabs, fetcher: fetcher, mode: mode, cellAspect: cellAspect,
                maxPixelCount: decoding.maxPixelCount, offline: global.isOffline, ordering: ordering, slideshow: slideshowSetting)
        }

        /// The tabs to open with, and the rest of a listing still under way.
        private func tabs(loader: any DataLoading) async throws -> (Catalog, AsyncStream<[AppImage]>?) {
            guard !images.isEmpty else {
                if global.isOffline, case .remote(let url) = global.catalogSource { throw OfflineCatalogError(url: url) }
                // Only the first page: a paged catalog loads the next one when the user reaches its end.
                let catalog = try await CatalogLoader(loader: loader).loadFirstPage(from: global.catalogSource)
                if catalog.images.isEmpty { throw CatalogError(origin: catalog.origin, problem: .empty) }
                return (catalog, nil)
            }
            let catalog = CatalogOnce(global: global, loader: loader)
            let sources = try await BrowseSource.resolve(images) { try await catalog.value() }
            // The first images are enough to open with; a big folder goes on being read behind the browser.
            let (first, rest) = await BackgroundListing.start(ImageListing(sources: sources, recursive: recursive))
            if first.isEmpty {
                if sources.count == 1, case .file(let url) = sources[0] { throw ImagePipelineError.notAnImage(url, contentType: nil) }
                throw NoImagesError(arguments: images)
            }
            return (Catalog(images: first, origin: .commandLine), rest)
        }
    }
}
