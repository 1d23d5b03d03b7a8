import ImgviewSupport

/// Where the tab strip sits on row 0 for a state: after the title, before the image count.
///
/// The screen draws from it and a mouse click is matched against it, so both always agree.
public struct TabStripPlacement: Sendable, Equatable {
    /// The title before the strip.
    public static let title = " imgview "
    public static let titleRule = "─ "

    /// The column the strip starts at.
    public let column: Int
    /// How many columns the strip may use.
    public let width: Int
    public let strip: TabStrip
    /// "5 images", at the right edge (with a spinner in front while more are being loaded).
    public let count: String

    public init(state: BrowserState, columns: Int, spinner: Character = BrowserScreen.spinner[0]) {
        column = DisplayWidth.of(Self.title) + DisplayWidth.of(Self.titleRule)
        let total = state.images.count
        var count = "\(total)\(state.hasMorePages ? "+" : "") image\(total == 1 && !state.hasMorePages ? "" : "s")"
        if state.isSorting {
            count += " · sorting"
        } else if state.order != .name || state.isReversed {
            count += " · " + Self.orderText(state)
        }
        count += " "
        if state.isLoadingMorePages || state.isSorting { count = "\(spinner) " + count }
        self.count = count
        width = max(0, columns - column - DisplayWidth.of(count) - 1)
        let images = state.images
        strip = TabStrip(
            names: images.lazy.map(\.name), selected: state.selectedIndex, width: width,
            isMarked: { state.marks.isEmpty ? false : state.marks.contains(images[$0].urlString) })
    }

    /// "by date", "by size, reversed", "shuffled": the order, when it is not the listing's.
    static func orderText(_ state: BrowserState) -> String {
        switch state.order {
        case .shuffle: "shuffled"
        case .name: state.isReversed ? "reversed" : ""
        default: "by \(state.order.rawValue)\(state.isReversed ? ", reversed" : "")"
        }
    }

    /// The tab drawn at `column` of row 0, if any.
    public func tab(at column: Int) -> Int? {
        strip.tabs.first { tab in
            let start = self.column + tab.column
            return column >= start && column < start + DisplayWidth.of(tab.label)
        }?.index
    }
}
