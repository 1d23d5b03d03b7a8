import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Writes iTerm2's inline image sequence (OSC 1337 `File=`), which also WezTerm, mlterm and
/// Konsole read.
///
/// The file is a PNG already scaled to the box in pixels; the size is also given in cells so the
/// terminal reserves exactly the cells the layout counted (keeping the aspect if its cells are
/// not the size we were told).
public struct ITermImageEncoder: Sendable {
    /// Wrap the sequence for tmux (see `TerminalRoute`).
    public var passthrough: Bool

    public init(passthrough: Bool = false) {
        self.passthrough = passthrough
    }

    /// The image sequence, drawn `rowsDown` rows below the cursor (a strip of a larger image; see
    /// `GraphicsRenderer`): the move goes inside the same passthrough packet, which is where
    /// `TmuxPlacement` puts the cursor.
    ///
    /// Made in one buffer, the PNG encoded into it in base64 a slice at a time: a full-screen
    /// image is megabytes, and each whole copy on the way (the base64, the body, the framed
    /// sequence) was as large again at the process's peak.
    public func display(png: Data, layout: GraphicsLayout, rowsDown: Int = 0) -> [UInt8] {
        let move = rowsDown > 0 ? EscapeSequence.cursorDown(rowsDown) : []
        let header = Array(
            "1337;File=inline=1;size=\(png.count);width=\(layout.columns);height=\(layout.rows);preserveAspectRatio=1:".utf8)
        var sequence = move + ControlString.osc.opening
        sequence.reserveCapacity(sequence.count + header.count + (png.count + 2) / 3 * 4 + 1)
        sequence += header
        let slice = 48 * 1024
        var start = png.startIndex
        while start < png.endIndex {
            let end = min(start + slice, png.endIndex)
            sequence += png[start..<end].base64EncodedData()
            start = end
        }
        // BEL, not ST: what iTerm2's own documentation and tools write.
        sequence += ControlString.osc.closing(endingWithBell: true)
        return TerminalRoute(passthrough: passthrough).wrap(sequence)
    }
}
