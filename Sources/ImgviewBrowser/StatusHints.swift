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

    /// The hints for `state`: with a zoomed view, its keys come first.
    public init(state: BrowserState) {
        var hints: [(keys: [(String, BrowserCommand)], word: String)] = [
            ([("←", .previous), ("→", .next)], "tab"), ([("/", .find)], "find"),
        ]
        if state.viewport.isFit {
            hints += [([("f", .toggleFullWidth)], state.isFullWidth ? "facts" : "full"), ([("+", .zoomIn), ("-", .zoomOut)], "zoom")]
        } else {
            hints += [
                ([("+", .zoomIn), ("-", .zoomOut)], "zoom ×" + Self.zoomText(state.viewport.zoom)),
                (
                    [
                        ("H", .pan(dx: -1, dy: 0)), ("J", .pan(dx: 0, dy: 1)), ("K", .pan(dx: 0, dy: -1)),
                        ("L", .pan(dx: 1, dy: 0)),
                    ], "pan"
                ),
                ([("0", .zoomFit)], "fit"), ([("f", .toggleFullWidth)], state.isFullWidth ? "facts" : "full"),
            ]
        }
        hints += [
            ([("r", .reload)], "reload"), ([("x", .stop)], "stop"), ([("d", .save)], "save"), ([("m", .toggleMode)], "mode"),
            ([("c", .toggleCache)], "cache"), ([("?", .toggleHelp)], "help"), ([("q", .quit)], "quit"),
        ]
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
