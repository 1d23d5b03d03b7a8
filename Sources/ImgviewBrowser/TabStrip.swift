import ImgviewSupport

/// Lays out the segment-like tabs in the width the strip has, scrolled so the selected tab shows.
///
/// Tabs keep their order and width; when they do not all fit, the strip shows a run that
/// includes the selected tab and says on which sides more are hidden.
public struct TabStrip: Sendable, Equatable {
    /// A name longer than this is cut, so one long name cannot take the whole strip.
    public static let maxNameWidth = 24

    /// One visible tab.
    public struct Tab: Sendable, Equatable {
        public var index: Int
        /// Offset from the strip's left edge.
        public var column: Int
        public var label: String
        public var isSelected: Bool
    }

    public var tabs: [Tab]
    public var hiddenBefore: Bool
    public var hiddenAfter: Bool

    /// What stands before a marked image's name, in the space that is otherwise blank.
    public static let markSign = "•"

    /// The label of a tab: the selected one bracketed, the others padded to the same width; a
    /// marked one with `markSign` before its name.
    public static func label(for name: String, selected: Bool, marked: Bool = false) -> String {
        let shown = DisplayWidth.truncated(TerminalText.sanitized(name), to: maxNameWidth)
        let lead = marked ? markSign : " "
        return selected ? "[\(lead)\(shown) ]" : " \(lead)\(shown)  "
    }

    /// The strip for `names` with `selected` chosen, in `width` columns (room for the `‹ ›` marks included).
    ///
    /// Only the tabs near the selected one are measured, however many there are: a catalog of
    /// 100,000 images lays out as fast as one of ten (pass `images.lazy.map(\.name)`).
    /// `isMarked` says whether the tab at an offset is marked.
    public init<Names: RandomAccessCollection<String>>(
        names: Names, selected: Int, width: Int, isMarked: (Int) -> Bool = { _ in false }
    ) where Names.Index == Int {
        var measured: [Int: (label: String, width: Int)] = [:]
        func tab(_ offset: Int) -> (label: String, width: Int) {
            if let known = measured[offset] { return known }
            let label = Self.label(for: names[names.startIndex + offset], selected: offset == selected, marked: isMarked(offset))
            let tab = (label, DisplayWidth.of(label))
            measured[offset] = tab
            return tab
        }
        let count = names.count
        // Whether every tab fits: stop adding as soon as they do not.
        var total = 0
        var counted = 0
        while counted < count, total <= width {
            total += tab(counted).width
            counted += 1
        }
        guard total > width, (0..<count).contains(selected) else {
            var column = 0
            var visible: [Tab] = []
            for index in 0..<count {
                let (label, tabWidth) = tab(index)
                guard column + tabWidth <= width else { break }
                visible.append(Tab(index: index, column: column, label: label, isSelected: index == selected))
                column += tabWidth
            }
            tabs = visible
            hiddenBefore = false
            hiddenAfter = tabs.count < count
            return
        }
        // Two columns on each side for the scroll marks. The selected tab shows, with as many tabs
        // before it as fit, then as many after it.
        let room = max(0, width - 4)
        var first = selected
        var used = tab(selected).width
        while first > 0, used + tab(first - 1).width <= room {
            first -= 1
            used += tab(first).width
        }
        var last = selected
        while last + 1 < count, used + tab(last + 1).width <= room {
            last += 1
            used += tab(last).width
        }
        var column = 2
        var visible: [Tab] = []
        for index in first...last {
            let (label, tabWidth) = tab(index)
            visible.append(Tab(index: index, column: column, label: label, isSelected: index == selected))
            column += tabWidth
        }
        tabs = visible
        hiddenBefore = first > 0
        hiddenAfter = last < count - 1
    }
}
