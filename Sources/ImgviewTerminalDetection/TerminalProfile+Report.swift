import ImgviewImaging
import ImgviewSupport

/// `imgview terminal`'s two outputs: lines for people, JSON for scripts and bug reports.
extension TerminalProfile {
    /// One `label  value` line per finding, aligned.
    public var reportLines: [(String, String)] {
        var lines: [(String, String)] = []
        let name = terminal.map { TerminalText.sanitized($0) + " (" + (terminalEvidence ?? "") + ")" } ?? "unknown"
        lines.append(("terminal", name))
        lines.append(("auto", "\(autoMode.rawValue): \(TerminalText.sanitized(autoReason))"))
        for support in graphics {
            lines.append((support.graphics.rawValue, (support.isAvailable ? "yes: " : "no: ") + TerminalText.sanitized(support.reason)))
        }
        lines.append(("symbols", "\(symbols.rawValue): \(TerminalText.sanitized(symbolsReason))"))
        lines.append(("colours", "\(colors.rawValue) (\(TerminalText.sanitized(colorsReason)))"))
        lines.append(("cell", "\(cellPixels.width)x\(cellPixels.height) px (\(cellPixelsSource))"))
        lines.append(("background", background.map(Self.hex) ?? "unknown"))
        if let colorRegisters { lines.append(("sixel colours", "\(colorRegisters) registers")) }
        lines.append(("synchronized", synchronizedOutput ? "yes (mode 2026)" : "no"))
        lines.append(("multiplexer", multiplexer.map { TerminalText.sanitized($0) + (passthrough ? ", passthrough on" : "") } ?? "none"))
        lines.append(("ssh", isRemote ? "yes" : "no"))
        let time = query.milliseconds.map { " in \($0) ms" } ?? ""
        lines.append(("query", "\(query.status)\(time) (\(query.reason))"))
        for line in advice { lines.append(("advice", line)) }
        return lines
    }

    /// The report as text, one finding a line.
    public var report: String {
        let width = reportLines.map(\.0.count).max() ?? 0
        return reportLines.map { $0.0.padded(toLength: width + 2) + $0.1 + "\n" }.joined()
    }

    /// The report as one JSON object; every key is always present.
    public var json: String {
        func string(_ text: String?) -> String { JSONText.string(text.map(TerminalText.sanitized)) }
        func number(_ value: Int?) -> String { value.map(String.init) ?? "null" }
        let graphicsObject = graphics.map {
            "\(string($0.graphics.rawValue)): {\"available\": \($0.isAvailable), \"reason\": \(string($0.reason))}"
        }.joined(separator: ", ")
        let fields = [
            "\"terminal\": \(string(terminal))",
            "\"evidence\": \(string(terminalEvidence))",
            "\"auto\": {\"mode\": \(string(autoMode.rawValue)), \"reason\": \(string(autoReason))}",
            "\"modes\": [\(availableModes.map { string($0.rawValue) }.joined(separator: ", "))]",
            "\"graphics\": {\(graphicsObject)}",
            "\"symbols\": {\"set\": \(string(symbols.rawValue)), \"reason\": \(string(symbolsReason))}",
            "\"colors\": {\"mode\": \(string(colors.rawValue)), \"reason\": \(string(colorsReason))}",
            "\"cell_pixels\": {\"width\": \(cellPixels.width), \"height\": \(cellPixels.height), \"source\": \(string(cellPixelsSource))}",
            "\"background\": \(string(background.map(Self.hex)))",
            "\"color_registers\": \(number(colorRegisters))",
            "\"synchronized_output\": \(synchronizedOutput)",
            "\"multiplexer\": \(string(multiplexer))",
            "\"passthrough\": \(passthrough)",
            "\"kitty_placeholders\": \(kittyPlaceholders)",
            "\"ssh\": \(isRemote)",
            "\"query\": {\"status\": \(string(query.status)), \"milliseconds\": \(query.milliseconds.map { String($0) } ?? "null"), "
                + "\"reason\": \(string(query.reason))}",
            "\"advice\": [\(advice.map(string).joined(separator: ", "))]",
        ]
        return "{" + fields.joined(separator: ", ") + "}\n"
    }

    static func hex(_ colour: RGBColor) -> String {
        "#" + [colour.red, colour.green, colour.blue].map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}
