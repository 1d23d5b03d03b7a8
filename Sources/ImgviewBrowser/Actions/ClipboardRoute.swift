import ImgviewImaging
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How text reaches the clipboard from a terminal program: OSC 52, which the terminal (or tmux)
/// acts on, over ssh too. No answer comes back, so whether it worked is for the user to see.
public struct ClipboardRoute: Sendable, Equatable {
    public enum Multiplexer: Sendable, Equatable {
        case none
        /// tmux, with its `set-clipboard` option (`on`, `external`, `off`) and whether it lets
        /// sequences through to its own terminal (`allow-passthrough`).
        case tmux(setClipboard: String?, passthrough: Bool)
        /// GNU screen, which passes no OSC 52 on.
        case screen
    }

    /// More than this is refused: some terminals drop long OSC 52 strings without a word, and
    /// tmux drops what does not fit its 1 MiB input buffer (DECISIONS.md, "OSC 52").
    public static let maxBytes = 100_000

    public var multiplexer: Multiplexer

    public init(multiplexer: Multiplexer) {
        self.multiplexer = multiplexer
    }

    /// Why text could not be sent.
    public struct Refusal: Error, Sendable, Equatable {
        public var message: String
    }

    /// The bytes that put `text` on the clipboard here, and how they go ("through tmux").
    public func sequence(for text: String) throws(Refusal) -> (bytes: [UInt8], route: String) {
        let utf8 = Array(text.utf8)
        guard utf8.count <= Self.maxBytes else {
            throw Refusal(message: "\(ByteCount.format(Int64(utf8.count))) is too much for the clipboard (at most 100 KB)")
        }
        let plain = Self.osc52(utf8)
        switch multiplexer {
        case .none:
            return (plain, "OSC 52")
        case .screen:
            throw Refusal(message: "GNU screen passes no clipboard request on")
        case .tmux(let setClipboard, let passthrough):
            // tmux keeps a copy only with set-clipboard on, and ignores a program's request otherwise;
            // passthrough hands it to the terminal tmux runs in as well.
            let storesIt = setClipboard == "on"
            switch (storesIt, passthrough) {
            case (true, true): return (plain + TerminalRoute.tmuxPassthrough.wrap(plain), "tmux and its terminal")
            case (true, false): return (plain, "tmux")
            case (false, true): return (TerminalRoute.tmuxPassthrough.wrap(plain), "tmux passthrough")
            case (false, false):
                throw Refusal(message: "tmux ignores clipboard requests: add `set -g set-clipboard on` to ~/.tmux.conf")
            }
        }
    }

    /// OSC 52 for the clipboard (`c`) with `bytes` in base64, ended by BEL as terminals and tmux
    /// most widely accept it. The one place it is spelled.
    static func osc52(_ bytes: [UInt8]) -> [UInt8] {
        ControlString.osc.framed(Array("52;c;".utf8) + Array(Data(bytes).base64EncodedString().utf8), endingWithBell: true)
    }

    /// The text a list of paths or URLs is copied as: one per line, control characters as `?`.
    public static func text(for items: [String]) -> String {
        items.map { item in
            String(String.UnicodeScalarView(item.unicodeScalars.map { TerminalText.isUnsafe($0) ? "?" : $0 }))
        }.joined(separator: "\n")
    }
}
