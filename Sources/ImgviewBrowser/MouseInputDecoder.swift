import ImgviewSupport

/// Picks xterm's SGR mouse reports (`ESC [ < button ; column ; row M`, `m` on release) out of the
/// keys a terminal library hands over one by one, and passes every other key through.
///
/// The browser turns on SGR reporting itself (`enableSequence`) rather than through terminfo,
/// whose entries mostly still name the old X10 encoding (tmux-256color among them), which cannot
/// place a click past column 223. A report split across two reads is put back together; keys
/// that only looked like the start of a report come out unchanged.
public struct MouseInputDecoder: Sendable {
    /// Turns on button press and release reports (1000) in the SGR encoding (1006).
    public static let enableSequence = EscapeSequence.setMode(.mouseButtonReports) + EscapeSequence.setMode(.mouseSGREncoding)
    /// Turns them off again.
    public static let disableSequence = EscapeSequence.resetMode(.mouseSGREncoding) + EscapeSequence.resetMode(.mouseButtonReports)

    /// What a key completed.
    public enum Output: Sendable, Equatable {
        case key(BrowserKey)
        case mouse(MouseEvent)
    }

    /// The keys of a report under way, from its ESC on.
    private var pending: [BrowserKey] = []

    public init() {}

    /// Reads one key; returns what it completes (nothing while a report is still arriving).
    public mutating func feed(_ key: BrowserKey) -> [Output] {
        if pending.isEmpty {
            if key == .escape {
                pending = [key]
                return []
            }
            return [.key(key)]
        }
        pending.append(key)
        switch pending.count {
        case 2:
            if key == .character("[") { return [] }
        case 3:
            if key == .character("<") { return [] }
        default:
            guard case .character(let character) = key else { break }
            if character.isASCII, character.isNumber || character == ";" { return [] }
            if character == "M" || character == "m", let event = Self.event(from: pending) {
                pending = []
                return [.mouse(event)]
            }
        }
        return giveBack()
    }

    /// At the end of a read: a lone ESC was the Escape key, not the start of a report (the
    /// terminal library already waited for the rest). A longer start is kept for the next read.
    public mutating func endOfInput() -> [Output] {
        pending == [.escape] ? giveBack() : []
    }

    /// The pending keys as keys: the ESC, and whatever followed, read again from scratch.
    private mutating func giveBack() -> [Output] {
        let keys = pending
        pending = []
        var outputs: [Output] = [.key(keys[0])]
        for key in keys.dropFirst() { outputs += feed(key) }
        return outputs
    }

    /// The event an `ESC [ < b ; x ; y M|m` report describes.
    private static func event(from keys: [BrowserKey]) -> MouseEvent? {
        let text = String(
            keys.dropFirst(3).compactMap { key -> Character? in
                if case .character(let character) = key { return character }
                return nil
            })
        guard let final = text.last else { return nil }
        let fields = text.dropLast().split(separator: ";", omittingEmptySubsequences: false).map { Int($0) }
        guard fields.count == 3, let code = fields[0], let column = fields[1], let row = fields[2], column >= 1, row >= 1 else {
            return nil
        }
        let button = code & 0b11
        let kind: MouseEvent.Kind
        if code & 64 != 0 {
            // 64 wheel up, 65 wheel down; 66 and 67 (sideways) are not used.
            guard button <= 1 else { return nil }
            kind = button == 0 ? .wheelUp : .wheelDown
        } else if code & 32 != 0 {
            guard button < 3 else { return nil }
            kind = .drag(button: button)
        } else {
            guard button < 3 else { return nil }
            kind = final == "M" ? .press(button: button) : .release(button: button)
        }
        return MouseEvent(kind, column: column - 1, row: row - 1)
    }
}
