/// Where each part of the browser screen goes for a terminal size.
///
/// Row 0 is the tab strip, the last row the status line; between them the preview box on the
/// left and the metadata box on the right, or the preview box alone across the whole width. Both the presenter (to render previews for the
/// pane) and the screen composer use it, so they always agree.
public struct BrowserLayout: Sendable, Equatable {
    /// Smaller than this, the screen shows a message instead of panes.
    public static let minimumSize = TerminalSize(columns: 50, rows: 12)

    public let size: TerminalSize
    /// Whether the metadata box is shown beside the preview.
    public let showsMetadata: Bool
    public var fits: Bool {
        size.columns >= Self.minimumSize.columns && size.rows >= Self.minimumSize.rows
    }

    public init(size: TerminalSize, showsMetadata: Bool = true) {
        self.size = size
        self.showsMetadata = showsMetadata
    }

    /// The metadata box's width: wide enough for a URL to mean something, never most of the screen;
    /// none when it is hidden.
    public var metadataWidth: Int {
        showsMetadata ? min(48, max(28, size.columns * 3 / 10)) : 0
    }

    /// The boxes sit between the tab strip and the status line.
    public var boxTop: Int { 1 }
    public var boxHeight: Int { max(0, size.rows - 2) }

    public var previewBox: Rectangle {
        Rectangle(column: 0, row: boxTop, width: size.columns - metadataWidth, height: boxHeight)
    }

    public var metadataBox: Rectangle {
        Rectangle(column: size.columns - metadataWidth, row: boxTop, width: metadataWidth, height: boxHeight)
    }

    /// Inside the preview box's border: the cells a preview may fill.
    public var previewArea: Rectangle { previewBox.inset(by: 1) }

    public var statusRow: Int { size.rows - 1 }
}

/// A rectangle of cells.
public struct Rectangle: Sendable, Equatable {
    public var column: Int
    public var row: Int
    public var width: Int
    public var height: Int

    public init(column: Int, row: Int, width: Int, height: Int) {
        self.column = column
        self.row = row
        self.width = max(0, width)
        self.height = max(0, height)
    }

    public func inset(by cells: Int) -> Rectangle {
        Rectangle(column: column + cells, row: row + cells, width: width - 2 * cells, height: height - 2 * cells)
    }
}
