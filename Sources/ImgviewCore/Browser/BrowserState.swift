import Foundation

/// Everything the browser screen shows, as one value: the presenter changes it, a view draws it.
public struct BrowserState: Sendable, Equatable {
    /// The catalog's images so far (a paged catalog grows as the user reaches its end).
    public var images: [AppImage]
    public var selectedIndex: Int
    /// Whether the catalog has another page to load.
    public var hasMorePages: Bool
    public var isLoadingMorePages: Bool
    public var terminalSize: TerminalSize
    public var mode: RenderMode
    /// The colours previews are rendered with: what the terminal can show.
    public var colors: ColorMode
    /// The selected image's state.
    public var phase: ImagePhase
    /// The last thing to tell the user (saved a file, an error), until the next action.
    public var notice: Notice?
    public var overlay: Overlay?

    public init(
        images: [AppImage], selectedIndex: Int = 0, hasMorePages: Bool = false, terminalSize: TerminalSize,
        mode: RenderMode, colors: ColorMode
    ) {
        self.images = images
        self.selectedIndex = selectedIndex
        self.hasMorePages = hasMorePages
        isLoadingMorePages = false
        self.terminalSize = terminalSize
        self.mode = mode
        self.colors = colors
        phase = .idle
    }

    public var selectedImage: AppImage? {
        images.indices.contains(selectedIndex) ? images[selectedIndex] : nil
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

    public init(facts: ImageFacts, preview: RenderedPreview?, warning: String? = nil) {
        self.facts = facts
        self.preview = preview
        self.warning = warning
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
