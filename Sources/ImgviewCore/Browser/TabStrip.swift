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

    /// The label of a tab: the selected one bracketed, the others padded to the same width.
    public static func label(for name: String, selected: Bool) -> String {
        let shown = DisplayWidth.truncated(TerminalText.sanitized(name), to: maxNameWidth)
        return selected ? "[ \(shown) ]" : "  \(shown)  "
    }

    /// The strip for `names` with `selected` chosen, in `width` columns (room for the `‹ ›` marks included).
    public init(names: [String], selected: Int, width: Int) {
        let labels = names.enumerated().map { Self.label(for: $1, selected: $0 == selected) }
        let widths = labels.map(DisplayWidth.of)
        let total = widths.reduce(0, +)
        guard total > width, names.indices.contains(selected) else {
            var column = 0
            tabs = labels.enumerated().compactMap { index, label in
                defer { column += widths[index] }
                return column + widths[index] <= width
                    ? Tab(index: index, column: column, label: label, isSelected: index == selected) : nil
            }
            hiddenBefore = false
            hiddenAfter = tabs.count < names.count
            return
        }
        // Two columns on each side for the scroll marks.
        let room = max(0, width - 4)
        var first = 0
        var used = widths[first...selected].reduce(0, +)
        while used > room, first < selected {
            used -= widths[first]
            first += 1
        }
        var last = selected
        while last + 1 < names.count, used + widths[last + 1] <= room {
            last += 1
            used += widths[last]
        }
        // Fill leftover room to the left as well, so the end of the list does not leave a gap.
        while first > 0, used + widths[first - 1] <= room {
            first -= 1
            used += widths[first]
        }
        var column = 2
        var visible: [Tab] = []
        for index in first...last {
            visible.append(Tab(index: index, column: column, label: labels[index], isSelected: index == selected))
            column += widths[index]
        }
        tabs = visible
        hiddenBefore = first > 0
        hiddenAfter = last < names.count - 1
    }
}
