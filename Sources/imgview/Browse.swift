import ArgumentParser
import ImgviewBrowser
import ImgviewFetching
import ImgviewHTML
import ImgviewSupport
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
                natural order, 2 before 10; --recursive for subfolders), http(s) URLs (the URL of a \
                web page opens the images it shows, as get --page finds them), catalog names. \
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
            name: .customLong("symbols"),
            help: ArgumentHelp(
                "The characters of the blocks mode: block (halves), quad (halves and quadrants), sextant, ascii, or auto (quad; sextant where the terminal answers that it draws them; the default, or IMGVIEW_SYMBOLS).",
                valueName: "symbols"))
        var symbolsOption: SymbolsChoice?

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
            let symbols = try SymbolsChoice.setting(symbolsOption, environment: ProcessInfo.processInfo.environment).value
            guard CursesTerminal.hasTerminal else { throw TerminalError.notATerminal }
            // One client for the catalog and the images: one multi handle, connections shared.
            let loader = try network.makeLoader()
            let (catalog, moreTabs, notice) = try await tabs(loader: loader)
            let fetcher = try network.makeFetcher(global: global, loader: loader)
            try await BrowserLauncher.run(
                catalog: catalog, moreTabs: moreTabs, fetcher: fetcher, mode: mode, symbols: symbols, cellAspect: cellAspect,
                maxPixelCount: decoding.maxPixelCount, offline: global.isOffline, ordering: ordering, slideshow: slideshowSetting,
                notice: notice)
        }

        /// `sources` with each web page among the URLs replaced by the images it shows, as tabs.
        ///
        /// A URL whose name says it is an image is left as it is; any other is asked for, and its
        /// head decides: HTML is read (libxml2, as `get --page`), anything else is an image URL
        /// after all, and only its head was fetched. One that cannot be read (a 404, a refused
        /// connection) stays a tab, which says what went wrong as any image's does. A page without
        /// images is exit 4, one that cannot be parsed (no libxml2) exit 12.
        static func openingPages(_ sources: [BrowseSource], loader: any DataLoading) async throws -> [BrowseSource] {
            var opened: [BrowseSource] = []
            for source in sources {
                guard case .url(let url) = source, !PageScanner.namesAnImage(url.path) else {
                    opened.append(source)
                    continue
                }
                let page: WebPage
                do {
                    page = try await PageReader(loader: loader, parsing: LibXMLHTMLParser()).read(url, onlyHTML: true)
                } catch let error as PageError {
                    throw error
                } catch {
                    opened.append(source)
                    continue
                }
                guard !page.images.isEmpty else { throw PageError.noImages(url) }
                opened += BrowseSource.images(of: page)
            }
            return opened
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
            let sources = global.isOffline ? resolved.sources : try await Self.openingPages(resolved.sources, loader: loader)
            // The first images are enough to open with; a big folder goes on being read behind the browser.
            let (first, rest) = await BackgroundListing.start(ImageListing(sources: sources, recursive: recursive))
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
