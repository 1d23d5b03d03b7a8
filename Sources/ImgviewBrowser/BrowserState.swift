import ImgviewFetching
import ImgviewImaging
import ImgviewPipeline
import ImgviewSupport
import ImgviewTerminalDetection

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Everything the browser screen shows, as one value: the presenter changes it, a view draws it.
public struct BrowserState: Sendable, Equatable {
    /// The catalog's images so far (a paged catalog grows as the user reaches its end).
    public var images: [AppImage]
    public var selectedIndex: Int
    /// Whether the catalog has another page to load.
    public var hasMorePages: Bool
    public var isLoadingMorePages: Bool
    public var terminalSize: TerminalSize
    public var mode: PreviewMode
    /// The modes `m` cycles through, in order: those this terminal can show.
    public var modes: [PreviewMode]
    /// The colours previews are rendered with: what the terminal can show.
    public var colors: ColorMode
    /// The selected image's state.
    public var phase: ImagePhase
    /// The last thing to tell the user (saved a file, an error), until the next action.
    public var notice: Notice?
    public var overlay: Overlay?
    /// Which part of the selected image the preview shows (zoom and pan); back to fit on another tab.
    public var viewport: Viewport = .fit
    /// Which page of the selected image shows, for a file of several (`[` and `]`); the first on another tab.
    public var page = 0
    /// Whether the preview takes the whole width, the metadata pane hidden (`f`).
    public var isFullWidth = false
    /// A search or a tab number being typed in the status line.
    public var prompt: BrowserPrompt?
    /// The user paused the animation on screen (space); selecting another tab plays again.
    public var isPaused = false
    /// Which key does what: the help panel and the status line's hints show it.
    public var keymap = Keymap.standard
    /// The marked images, by URL text: a property of the image list, kept by whatever shows it
    /// (the tab strip, a grid) and through sorting, paging and a folder still being listed.
    public var marks: Set<String> = []
    /// The slideshow: its interval, and whether it runs.
    public var slideshow = Slideshow()
    /// The order the images are in, and whether it is reversed.
    public var order = ImageOrder.name
    public var isReversed = false
    /// Sort keys are being read for images not yet in their place.
    public var isSorting = false
    /// `keyHandler` was pressed: the next key goes to the key-handler.
    public var awaitsHandlerKey = false
    /// Set while the grid of thumbnails shows instead of the single image (`g`); the selection is
    /// the same in both.
    public var grid: GridViewport?

    public init(
        images: [AppImage], selectedIndex: Int = 0, hasMorePages: Bool = false, terminalSize: TerminalSize,
        mode: PreviewMode, modes: [PreviewMode]? = nil, colors: ColorMode
    ) {
        self.images = images
        self.selectedIndex = selectedIndex
        self.hasMorePages = hasMorePages
        isLoadingMorePages = false
        self.terminalSize = terminalSize
        self.mode = mode
        self.modes = Self.cycle(of: mode, among: modes ?? [.blocks, .ascii])
        self.colors = colors
        phase = .idle
    }

    /// The mode `m` switches to next.
    public var nextMode: PreviewMode {
        guard let index = modes.firstIndex(of: mode) else { return modes.first ?? mode }
        return modes[(index + 1) % modes.count]
    }

    /// `modes` with `mode` in it (first, when the user named a mode the terminal did not offer), each once.
    private static func cycle(of mode: PreviewMode, among modes: [PreviewMode]) -> [PreviewMode] {
        var seen: Set<PreviewMode> = []
        let all = (modes.contains(mode) ? modes : [mode] + modes).filter { seen.insert($0).inserted }
        return all
    }

    public var selectedImage: AppImage? {
        images.indices.contains(selectedIndex) ? images[selectedIndex] : nil
    }

    /// Whether `image` is marked.
    public func isMarked(_ image: AppImage) -> Bool {
        !marks.isEmpty && marks.contains(image.urlString)
    }

    /// The marked images, in the list's order.
    public var markedImages: [AppImage] {
        marks.isEmpty ? [] : images.filter { marks.contains($0.urlString) }
    }

    /// What an action applies to: the marked images, else the selected one.
    public var actionTargets: [AppImage] {
        let marked = markedImages
        if !marked.isEmpty { return marked }
        return selectedImage.map { [$0] } ?? []
    }

    /// Where each part of the screen goes in this state.
    public var layout: BrowserLayout {
        BrowserLayout(size: terminalSize, showsMetadata: !isFullWidth && grid == nil)
    }

    /// Where the grid's cells go, while the grid shows.
    public var gridLayout: GridLayout? {
        guard let grid else { return nil }
        return GridLayout(area: layout.previewArea, thumbnailPixels: grid.thumbnailPixels, cell: grid.cell)
    }

    /// What the selected image's grid cell shows, while the grid shows.
    public var selectedGridCell: GridCell? {
        guard let grid, let image = selectedImage else { return nil }
        return grid.cells[image.urlString]
    }
}

/// The slideshow's interval, and whether it runs, waits for a key to resume, or is off.
public struct Slideshow: Sendable, Equatable {
    public enum Status: Sendable, Equatable {
        case off
        case running
        /// A key stopped it; the slideshow key resumes it.
        case paused
    }

    /// How long each still image shows (an animation plays at least once).
    public var interval: Duration
    public var status: Status

    public init(interval: Duration = .seconds(5), status: Status = .off) {
        self.interval = interval
        self.status = status
    }

    /// "5 s", "2.5 s": an interval as the status line says it.
    public static func text(_ interval: Duration) -> String {
        let tenths = Int((interval.seconds * 10).rounded())
        return tenths % 10 == 0 ? "\(tenths / 10) s" : "\(tenths / 10).\(tenths % 10) s"
    }
}

/// A terminal's size in cells.
public struct TerminalSize: Sendable, Equatable, Hashable {
    public var columns: Int
    public var rows: Int

    public init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
    }
}

/// Where the selected image is on its way to the screen.
public enum ImagePhase: Sendable, Equatable {
    /// Nothing asked for yet.
    case idle
    /// Fetching or decoding; `expected` is nil when the server did not say how much. `partial`
    /// is a picture of what has arrived so far, when the format can show one.
    case loading(received: Int64, expected: Int64?, partial: RenderedPreview? = nil)
    case loaded(ShownImage)
    /// A one-line reason, safe to print.
    case failed(String)
    /// The user stopped the transfer.
    case cancelled

    /// Whole percent received, when the total is known.
    public var percent: Int? {
        guard case .loading(let received, let expected?, _) = self, expected > 0 else { return nil }
        return Int(min(100, received * 100 / expected))
    }
}

/// A loaded image as the screen shows it: its facts and its rendered preview.
public struct ShownImage: Sendable, Equatable {
    public var facts: ImageFacts
    /// nil while the terminal is too small for a preview pane.
    public var preview: RenderedPreview?
    /// Set when only part of the image could be decoded.
    public var warning: String?
    /// Which of an animation's frames is on screen (0 for a still).
    public var frame: Int

    public init(facts: ImageFacts, preview: RenderedPreview?, warning: String? = nil, frame: Int = 0) {
        self.facts = facts
        self.preview = preview
        self.warning = warning
        self.frame = frame
    }

    /// The cells on screen now: the animation's current frame, or the still preview.
    public var grid: CellGrid? {
        guard let preview else { return nil }
        guard let frames = preview.animation?.frames, frames.indices.contains(frame) else { return preview.grid }
        return frames[frame].grid
    }

    /// The pixels drawn over `grid` in a pixel mode: the current frame's, or the still's.
    public var graphics: GraphicsPreview? {
        guard let preview else { return nil }
        guard let frames = preview.animation?.frames, frames.indices.contains(frame) else { return preview.graphics }
        return frames[frame].graphics
    }
}

/// A one-line message in the status line.
public struct Notice: Sendable, Equatable {
    public var text: String
    public var isError: Bool

    public init(_ text: String, isError: Bool = false) {
        self.text = TerminalText.sanitized(text)
        self.isError = isError
    }
}

/// A panel drawn over the panes.
public enum Overlay: Sendable, Equatable {
    case help
    case cache(CacheOverview)
}

/// What the cache view lists: every cached image and the space they take.
public struct CacheOverview: Sendable, Equatable {
    public struct Row: Sendable, Equatable {
        /// The catalog name, when a catalog image has this URL.
        public var name: String?
        public var url: URL
        public var byteCount: Int64
        public var format: ImageFormat
        public var isFresh: Bool
        public var lastUsed: Date

        public init(name: String?, url: URL, byteCount: Int64, format: ImageFormat, isFresh: Bool, lastUsed: Date) {
            self.name = name
            self.url = url
            self.byteCount = byteCount
            self.format = format
            self.isFresh = isFresh
            self.lastUsed = lastUsed
        }
    }

    /// Most recently used first.
    public var rows: [Row]
    /// The row the panel's cursor is on, which Del removes.
    public var selectedRow = 0
    public var totalBytes: Int64
    public var limitBytes: Int64
    public var directory: String

    public init(rows: [Row], totalBytes: Int64, limitBytes: Int64, directory: String) {
        self.rows = rows
        self.totalBytes = totalBytes
        self.limitBytes = limitBytes
        self.directory = directory
    }
}
