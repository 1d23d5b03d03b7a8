import ImgviewSupport

/// Where the tmux pane imgview runs in sits in the outer terminal: what turns a cell of the pane
/// into the outer terminal's cell, for an image passed through to it (tmux does not place it).
///
/// From tmux's own arithmetic (`server_client_reset_state`): the pane's offset in its window, less
/// the part of a window bigger than the client that is scrolled off, plus the status lines when
/// the status bar is on top.
public struct TmuxPaneOrigin: Sendable, Equatable {
    /// The outer terminal's row and column (0-based) of the pane's top-left cell.
    public var row: Int
    public var column: Int

    public init(row: Int, column: Int) {
        self.row = row
        self.column = column
    }

    /// What `tmux display-message -p -t PANE` is asked. `window_offset_x/y` are empty unless the
    /// window is bigger than the client, so they are asked only then; every field is a number or a word.
    public static let format =
        "#{pane_top},#{pane_left},#{?window_bigger,#{window_offset_y},0},#{?window_bigger,#{window_offset_x},0},#{status},#{status-position}"

    /// Reads tmux's answer to `format`; nil when it is not one.
    public init?(formatAnswer line: String) {
        let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 6, let top = Int(fields[0]), let left = Int(fields[1]), let offsetY = Int(fields[2]),
            let offsetX = Int(fields[3])
        else { return nil }
        // `status` is off, on, or 2 to 5 lines.
        let statusLines = fields[4] == "off" ? 0 : fields[4] == "on" ? 1 : Int(fields[4]) ?? 1
        self.init(row: top - offsetY + (fields[5] == "top" ? statusLines : 0), column: left - offsetX)
    }

    /// The outer terminal's cell (1-based, as CUP takes it) of the pane's cell at `row`, `column` (1-based, as CPR says it).
    public func outer(row: Int, column: Int) -> (row: Int, column: Int) {
        (self.row + row, self.column + column)
    }
}

/// The answer to a cursor position report (`CSI 6 n` → `CSI row ; column R`), found among what
/// arrived, with everything else kept as input.
public struct CursorPositionReply: Sendable, Equatable {
    public var row: Int
    public var column: Int

    /// The question.
    public static let query = EscapeSequence.requestCursorPosition

    /// The first report in `bytes`, and the bytes around it (keys typed meanwhile); nil report while none is whole.
    public static func find(in bytes: [UInt8]) -> (reply: CursorPositionReply?, rest: [UInt8]) {
        var index = 0
        while index + 1 < bytes.count {
            guard bytes[index...].starts(with: ControlCode.csi) else {
                index += 1
                continue
            }
            var end = index + 2
            while end < bytes.count, (0x30...0x3B).contains(bytes[end]) { end += 1 }
            if end < bytes.count, bytes[end] == UInt8(ascii: "R") {
                let numbers = String(decoding: bytes[(index + 2)..<end], as: UTF8.self).split(separator: ";").compactMap { Int($0) }
                if numbers.count == 2 {
                    return (CursorPositionReply(row: numbers[0], column: numbers[1]), Array(bytes[..<index] + bytes[(end + 1)...]))
                }
            }
            index += 1
        }
        return (nil, bytes)
    }
}
