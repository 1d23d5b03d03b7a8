/// What a key can be bound to: the browser's commands by the names a config file's `[keys]`
/// table uses.
///
/// Esc (close a panel, else quit), Ctrl-C (quit), Ctrl-Z (suspend), the digits of the go-to
/// prompt and a panel's own keys are not actions: they mean the same everywhere.
public enum BrowserAction: String, Sendable, CaseIterable {
    case previous, next, first, last
    case pageBack = "page-back"
    case pageForward = "page-forward"
    case find, reload, stop, save, mode, help, cache
    case fullWidth = "full-width"
    case zoomIn = "zoom-in"
    case zoomOut = "zoom-out"
    case zoomFit = "zoom-fit"
    case panLeft = "pan-left"
    case panRight = "pan-right"
    case panUp = "pan-up"
    case panDown = "pan-down"
    case nextPage = "next-page"
    case previousPage = "previous-page"
    case pause, mark
    case markAll = "mark-all"
    case invertMarks = "invert-marks"
    case copy, open, trash, undo, slideshow, order
    case keyHandler = "key-handler"
    case grid
    case quit

    /// The command the action carries out.
    public var command: BrowserCommand {
        switch self {
        case .previous: .previous
        case .next: .next
        case .first: .first
        case .last: .last
        case .pageBack: .pageBack
        case .pageForward: .pageForward
        case .find: .find
        case .reload: .reload
        case .stop: .stop
        case .save: .save
        case .mode: .toggleMode
        case .help: .toggleHelp
        case .cache: .toggleCache
        case .fullWidth: .toggleFullWidth
        case .zoomIn: .zoomIn
        case .zoomOut: .zoomOut
        case .zoomFit: .zoomFit
        case .panLeft: .pan(dx: -1, dy: 0)
        case .panRight: .pan(dx: 1, dy: 0)
        case .panUp: .pan(dx: 0, dy: -1)
        case .panDown: .pan(dx: 0, dy: 1)
        case .nextPage: .nextPage
        case .previousPage: .previousPage
        case .pause: .togglePause
        case .mark: .toggleMark
        case .markAll: .markAll
        case .invertMarks: .invertMarks
        case .copy: .copy
        case .open: .open
        case .trash: .trash
        case .undo: .undo
        case .slideshow: .toggleSlideshow
        case .order: .cycleOrder
        case .keyHandler: .keyHandler
        case .grid: .toggleGrid
        case .quit: .quit
        }
    }

    /// The keys an action has unless a config file says otherwise.
    public var standardKeys: [BrowserKey] {
        switch self {
        case .previous: [.left, .character("h"), .backTab]
        case .next: [.right, .character("l"), .tab]
        case .first: [.home]
        case .last: [.end]
        case .pageBack: [.pageUp]
        case .pageForward: [.pageDown]
        case .find: [.character("/")]
        case .reload: [.character("r")]
        case .stop: [.character("x")]
        case .save: [.character("d")]
        case .mode: [.character("m")]
        case .help: [.character("?")]
        case .cache: [.character("c")]
        case .fullWidth: [.character("f")]
        case .zoomIn: [.character("+"), .character("=")]
        case .zoomOut: [.character("-")]
        case .zoomFit: [.character("0")]
        case .panLeft: [.character("H"), .shiftLeft]
        case .panRight: [.character("L"), .shiftRight]
        case .panUp: [.character("K"), .shiftUp]
        case .panDown: [.character("J"), .shiftDown]
        case .nextPage: [.character("]")]
        case .previousPage: [.character("[")]
        case .pause: [.character(" ")]
        case .mark: [.character("t")]
        case .markAll: [.character("T")]
        case .invertMarks: [.character("*")]
        case .copy: [.character("y")]
        case .open: [.character("o")]
        case .trash: [.character("D"), .delete]
        case .undo: [.character("u")]
        case .slideshow: [.character("S")]
        case .order: [.character("O")]
        case .keyHandler: [.control("x")]
        case .grid: [.character("g")]
        case .quit: [.character("q")]
        }
    }

    /// What the help panel says the action does.
    public var meaning: String {
        switch self {
        case .previous: "previous tab (also the mouse wheel)"
        case .next: "next tab (also the mouse wheel)"
        case .first: "first tab"
        case .last: "last tab"
        case .pageBack: "a strip's width of tabs back"
        case .pageForward: "a strip's width of tabs forward"
        case .find: "find a tab by name (Enter keeps, Esc goes back)"
        case .reload: "reload, bypassing the caches"
        case .stop: "stop loading"
        case .save: "save the marked images (or this one) to the working folder"
        case .mode: "next preview mode (of those this terminal shows)"
        case .help: "show or hide this help"
        case .cache: "the disk cache (↑ ↓ select, Del removes)"
        case .fullWidth: "preview across the whole width / with facts"
        case .zoomIn: "zoom in around the centre"
        case .zoomOut: "zoom out"
        case .zoomFit: "back to the whole image"
        case .panLeft: "pan a zoomed view left"
        case .panRight: "pan a zoomed view right"
        case .panUp: "pan a zoomed view up"
        case .panDown: "pan a zoomed view down"
        case .nextPage: "next page of a TIFF or HEIF of several"
        case .previousPage: "previous page of a TIFF or HEIF of several"
        case .pause: "pause / play an animation"
        case .mark: "mark / unmark this image"
        case .markAll: "mark all (again: none)"
        case .invertMarks: "invert the marks"
        case .copy: "copy the marked paths (or this one) to the clipboard"
        case .open: "open the marked images (or this one) in the desktop's viewer"
        case .trash: "move the marked images (or this one) to the trash"
        case .undo: "put back what was last moved to the trash"
        case .slideshow: "start / stop the slideshow (any key pauses it)"
        case .order: "sort by the next order: name, date, mtime, size"
        case .keyHandler: "then a key: run the key-handler on the marked images"
        case .grid: "a grid of thumbnails / the single image (Enter opens the selected one)"
        case .quit: "quit (Esc closes a panel first)"
        }
    }
}
