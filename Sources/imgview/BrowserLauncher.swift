import ImgviewBrowser
import ImgviewFetching
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

/// Starts the ncurses browser over a catalog and a fetcher: the wiring shared by
/// `imgview browse` and `imgview demo`.
enum BrowserLauncher {
    /// Runs the browser until the user quits; throws `Terminated` when a request to end closed it.
    ///
    /// The terminal is taken over only after everything that can fail before it (catalog, cache)
    /// has succeeded, so those errors print as plain lines.
    @MainActor
    static func run(
        catalog: Catalog, moreTabs: AsyncStream<[AppImage]>? = nil, fetcher: ImageFetcher, mode: ModeChoice?, cellAspect: Double,
        maxPixelCount: Int = DecodeRequest.defaultMaxPixelCount,
        offline: Bool, ordering: ImageOrdering = ImageOrdering(order: .name), slideshow: Slideshow = Slideshow()
    ) async throws {
        let environment = ProcessInfo.processInfo.environment
        // The terminal is asked what it draws before ncurses takes it over. Terminfo may add
        // colours to what the environment says, never take them all away, so whether there are
        // any (blocks or ASCII first) is known before.
        let detected = BrowserModes.detect(mode, colors: ColorMode.detect(environment: environment), environment: environment)
        let terminal = try CursesTerminal(environment: environment, graphics: detected.graphics)
        let colors = ColorMode.detect(environment: environment, terminfo: terminal.colorMode)
        let pipeline = ServiceOptions.makePipeline(fetcher: fetcher, maxPixelCount: maxPixelCount, offline: offline)
        let configuration = BrowserPresenter.Configuration(
            pipeline: pipeline, diskCache: fetcher.configuration.diskCache,
            catalogPaging: CatalogLoader(loader: fetcher.configuration.dataLoader), moreTabs: moreTabs,
            saveFolder: URL(fileURLWithPath: FileManager.default.currentDirectoryPath), cellAspect: cellAspect,
            graphics: detected.graphics, keymap: Settings.shared.keymap, ordering: ordering, slideshow: slideshow,
            actions: actions(environment: environment, passthrough: detected.graphics.passthrough))
        let presenter = BrowserPresenter(
            catalog: catalog, configuration: configuration, terminalSize: terminal.size, mode: detected.mode, modes: detected.modes,
            colors: colors)
        let variables = ProcessInfo.processInfo.environment
        let browser = TerminalBrowser(
            terminal: terminal, frameLogPath: variables["IMGVIEW_FRAME_LOG"], inputLogPath: variables["IMGVIEW_INPUT_LOG"])
        if case .signal(let number) = await browser.run(presenter) { throw Terminated(signal: number) }
    }

    /// What the browser's actions use here: the user's trash, opener and key-handler, and the way
    /// to the clipboard (tmux is asked about it on the first copy, not at start).
    static func actions(environment: [String: String], passthrough: Bool) -> BrowserActions {
        let multiplexer = TerminalEnvironment(environment).multiplexer
        return BrowserActions(
            trashCan: TrashCan(environment: environment), opener: ImageOpener(environment: environment),
            keyHandler: KeyHandler(environment: environment),
            clipboard: {
                switch multiplexer {
                case .tmux:
                    ClipboardRoute(
                        multiplexer: .tmux(setClipboard: TerminalProbe.tmuxServerOption("set-clipboard"), passthrough: passthrough))
                case .screen: ClipboardRoute(multiplexer: .screen)
                case nil: ClipboardRoute(multiplexer: .none)
                }
            }, copiesFolder: ActionFiles.defaultFolder(environment: environment))
    }
}
