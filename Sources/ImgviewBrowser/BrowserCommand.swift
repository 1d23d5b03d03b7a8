/// What the user can ask the browser to do.
public enum BrowserCommand: Sendable, Equatable {
    case next
    case previous
    /// Select the tab at this index (0-based).
    case jump(Int)
    /// Home and End: the first and the last tab.
    case first
    case last
    /// PgDn and PgUp: as many tabs as the strip shows, forward or back.
    case pageForward
    case pageBack
    /// ↑ and ↓: the row above or below in a panel.
    case lineUp
    case lineDown
    /// `/`: find a tab by name.
    case find
    /// Removes the selected entry of the cache panel.
    case remove
    case reload
    case stop
    case save
    case toggleMode
    case toggleHelp
    case toggleCache
    /// `f`: the preview takes the whole width, the metadata pane is hidden; again to show it.
    case toggleFullWidth
    case zoomIn
    case zoomOut
    /// Back to the whole image, fitted.
    case zoomFit
    /// Moves a zoomed view by a quarter of what shows, left (-1) or right (1), up (-1) or down (1).
    case pan(dx: Int, dy: Int)
    /// `]` and `[`: the next or previous page of a file of several (a scanned TIFF, a HEIF collection).
    case nextPage
    case previousPage
    /// Space: pause or play the animation on screen.
    case togglePause
    /// Marks or unmarks the selected image.
    case toggleMark
    /// Marks every image; when all are marked already, unmarks them.
    case markAll
    /// Marks the unmarked images and unmarks the marked ones.
    case invertMarks
    /// Copies the paths (or URLs) of the marked images, or the selected one, to the clipboard.
    case copy
    /// Opens the marked images, or the selected one, in the desktop's viewer.
    case open
    /// Moves the marked images, or the selected one, to the trash.
    case trash
    /// Puts back what the last `trash` moved to the trash.
    case undo
    /// Starts or stops the slideshow (resumes a paused one).
    case toggleSlideshow
    /// Sorts by the next order: name, date, mtime, size.
    case cycleOrder
    /// Waits for one more key and runs the user's key-handler with it.
    case keyHandler
    /// `g`: the grid of thumbnails, or back to the single image.
    case toggleGrid
    /// Esc: closes a panel, or quits when none is open.
    case dismiss
    case quit
}

extension BrowserCommand {
    /// The command a key means with the standard keys; nil for keys the browser ignores.
    public init?(key: BrowserKey) {
        guard let command = Keymap.standard.command(for: key) else { return nil }
        self = command
    }
}
