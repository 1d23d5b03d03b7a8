import ImgviewSupport

/// The key hints of the status line and where each sits, so a click on one does what its key does.
///
/// A hint is one or more keys and a word: "c cache", "← → tab". Clicking a key does that key's
/// command; clicking the word does the command of a hint's only key.
public struct StatusHints: Sendable, Equatable {
    /// A clickable stretch of the status line.
    public struct Target: Sendable, Equatable {
        public var column: Int
        public var width: Int
        public var command: BrowserCommand
    }

    /// The line as drawn, from column 0.
    public let text: String
    public let targets: [Target]

    /// The hints for `state`, with the keys as bound: with a zoomed view, its keys come first.
    public init(state: BrowserState) {
        func keys(_ actions: BrowserAction...) -> [(String, BrowserCommand)] {
            actions.compactMap { action in state.keymap.keys(for: action).first.map { ($0.label, action.command) } }
        }
        var hints: [(keys: [(String, BrowserCommand)], word: String)] = [(keys(.previous, .next), "tab"), (keys(.find), "find")]
        if state.grid != nil {
            hints = [
                ([("←↑↓→", .next)], "move"), ([("Enter", .toggleGrid)], "open"), (keys(.find), "find"),
                (keys(.zoomIn, .zoomOut), "size"), (keys(.mark), "mark"), (keys(.mode), "mode"), (keys(.grid), "single"),
                (keys(.help), "help"), (keys(.quit), "quit"),
            ]
            hints.removeAll { $0.keys.isEmpty }
            self.init(hints: hints)
            return
        }
        let fullWidth = (keys(.fullWidth), state.isFullWidth ? "facts" : "full")
        if state.viewport.isFit {
            hints += [fullWidth, (keys(.zoomIn, .zoomOut), "zoom")]
        } else {
            hints += [
                (keys(.zoomIn, .zoomOut), "zoom ×" + Self.zoomText(state.viewport.zoom)),
                (keys(.panLeft, .panDown, .panUp, .panRight), "pan"),
                (keys(.zoomFit), "fit"), fullWidth,
            ]
        }
        hints += [
            (keys(.reload), "reload")
        ]
        // Stop means something only while an image loads: its room goes to the grid otherwise.
        if case .loading = state.phase { hints.append((keys(.stop), "stop")) }
        hints += [
            (keys(.save), "save"), (keys(.mode), "mode"), (keys(.cache), "cache"),
            (keys(.grid), "grid"), (keys(.help), "help"), (keys(.quit), "quit"),
        ]
        hints.removeAll { $0.keys.isEmpty }
        self.init(hints: hints)
    }

    private init(hints: [(keys: [(String, BrowserCommand)], word: String)]) {
        var text = " "
        var targets: [Target] = []
        for (offset, hint) in hints.enumerated() {
            if offset > 0 { text += "  " }
            let start = DisplayWidth.of(text)
            for (key, command) in hint.keys {
                targets.append(Target(column: DisplayWidth.of(text), width: DisplayWidth.of(key), command: command))
                text += key + " "
            }
            text += hint.word
            if hint.keys.count == 1 {
                // The whole hint, key and word, does the one command.
                targets[targets.count - 1] = Target(column: start, width: DisplayWidth.of(text) - start, command: hint.keys[0].1)
            }
        }
        self.text = text
        self.targets = targets
    }

    /// The command of the hint at `column`, if one is drawn there within `width` columns.
    public func command(at column: Int, width: Int) -> BrowserCommand? {
        targets.first { column >= $0.column && column < $0.column + $0.width && $0.column + $0.width <= width }?.command
    }

    /// "2.3", "4": the zoom as the status line shows it.
    public static func zoomText(_ zoom: Double) -> String {
        let rounded = (zoom * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
