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
    /// Fetching or decoding; `expected` is nil when the server did not say how much.
    case loading(received: Int64, expected: Int64?)
    case loaded(ShownImage)
    /// A one-line reason, safe to print.
    case failed(String)
    /// The user stopped the transfer.
    case cancelled

    /// Whole percent received, when the total is known.
    public var percent: Int? {
        guard case .loading(let received, let expected?) = self, expected > 0 else { return nil }
        return Int(min(100, received * 100 / expected))
    }
}

/// A loaded image as the screen shows it: its details and its rendered preview.
public struct ShownImage: Sendable, Equatable {
    public var details: ImageDetails
    /// nil while the preview is being rendered for a new size or mode.
    public var preview: CellGrid?
    /// Set when only part of the image could be decoded.
    public var warning: String?

    public init(details: ImageDetails, preview: CellGrid?, warning: String? = nil) {
        self.details = details
        self.preview = preview
        self.warning = warning
    }
}

/// The metadata pane's facts about one image.
public struct ImageDetails: Sendable, Equatable {
    public var url: URL
    public var format: ImageFormat
    /// Upright size in pixels.
    public var width: Int
    public var height: Int
    public var byteCount: Int64
    public var source: ImageResponse.Source
    /// From the request to the last byte.
    public var fetchTime: Duration
    public var decodeTime: Duration
    public var cacheState: CacheStatus

    public init(
        url: URL, format: ImageFormat, width: Int, height: Int, byteCount: Int64, source: ImageResponse.Source,
        fetchTime: Duration, decodeTime: Duration, cacheState: CacheStatus
    ) {
        self.url = url
        self.format = format
        self.width = width
        self.height = height
        self.byteCount = byteCount
        self.source = source
        self.fetchTime = fetchTime
        self.decodeTime = decodeTime
        self.cacheState = cacheState
    }
}

/// What the disk cache holds for an image, with the times the metadata pane shows (`CacheState` is the plain kind).
public enum CacheStatus: Sendable, Equatable {
    case notCached
    case fresh(until: Date)
    case stale(since: Date)

    public init(isCached: Bool, entry: CacheEntry, now: Date) {
        if !isCached {
            self = .notCached
        } else if entry.isFresh(at: now) {
            self = .fresh(until: entry.freshUntil)
        } else {
            self = .stale(since: entry.freshUntil)
        }
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
