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
    public func display(png: Data, layout: GraphicsLayout, rowsDown: Int = 0) -> [UInt8] {
        var body: [UInt8] = Array(
            "1337;File=inline=1;size=\(png.count);width=\(layout.columns);height=\(layout.rows);preserveAspectRatio=1:".utf8)
        body += Array(png.base64EncodedData())
        // BEL, not ST: what iTerm2's own documentation and tools write.
        let sequence = ControlString.osc.framed(body, endingWithBell: true)
        return TerminalRoute(passthrough: passthrough).wrap(rowsDown > 0 ? EscapeSequence.cursorDown(rowsDown) + sequence : sequence)
    }
}
