import ArgumentParser
import ImgviewImaging
import ImgviewSupport
import ImgviewTerminal
import ImgviewTerminalDetection

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// The `--mode` choices (and `IMGVIEW_MODE`): a preview mode, or `auto` to ask the terminal.
enum ModeChoice: String, ExpressibleByArgument, CaseIterable {
    case auto, kitty, iterm, sixel, blocks, ascii

    /// `--mode` when given, else `IMGVIEW_MODE`, else the config file's, else nil (each command has its default).
    static func resolved(_ option: ModeChoice?, environment: [String: String]) throws -> ModeChoice? {
        try setting(option, environment: environment).value
    }

    static func setting(_ option: ModeChoice?, environment: [String: String]) throws -> Resolved<ModeChoice?> {
        try Settings.shared.resolve(
            "mode", commandLine: option.map { Optional($0) }, environment: environment,
            fromEnvironment: { value -> ModeChoice?? in
                guard let choice = ModeChoice(rawValue: value.lowercased()) else { throw ModeError(value: value) }
                return choice
            },
            fromFile: { value -> ModeChoice?? in
                guard let choice = Settings.text(value).flatMap(ModeChoice.init(rawValue:)) else { return nil }
                return choice
            }, standard: nil)
    }
}

/// An `IMGVIEW_MODE` that names no mode: a usage error, as a bad `--mode` is.
struct ModeError: UserFacingError {
    let value: String
    var message: String {
        "IMGVIEW_MODE=\(TerminalText.sanitized(value)) is not a mode (auto, kitty, iterm, sixel, blocks or ascii)"
    }
    var exitStatus: ExitStatus { .usage }
}

/// How `show` draws: the mode chosen, the block characters, and what the terminal said that pixels need.
struct PreviewSetup {
    var mode: PreviewMode
    var graphics: GraphicsOptions?
    var symbols: BlockSymbols = .quad

    /// Resolves `choice` (nil: `auto`) for output to stdout. `auto` asks the terminal only when
    /// stdout is one, and otherwise takes blocks, or ASCII without colours;
    /// an explicit pixel mode is obeyed into a pipe too, with the cell size the kernel reports
    /// (or the usual 10×20 pixels), and asks the terminal only when the kernel does not say.
    /// Blocks on a terminal with `symbols` auto ask it too: sextants only where it answers that it draws them.
    static func forShow(
        _ choice: ModeChoice?, symbols: SymbolsChoice = .auto, box: CellBox, colors: ColorMode, background: RGBColor?,
        environment: [String: String]
    ) -> PreviewSetup {
        let textMode: PreviewMode = symbols.applied(to: colors == .none ? .ascii : .blocks)
        let onTerminal = isatty(STDOUT_FILENO) == 1
        var mode: PreviewMode
        var profile: TerminalProfile?
        func probe() -> TerminalProfile { TerminalProbe.profile(environment: environment) }
        switch choice ?? .auto {
        case .auto:
            guard onTerminal else { return PreviewSetup(mode: textMode, graphics: nil, symbols: symbols.blockSymbols(profile: nil)) }
            profile = probe()
            mode = profile!.autoMode == .blocks || profile!.autoMode == .ascii ? textMode : profile!.autoMode
        case .kitty: mode = .kitty
        case .iterm: mode = .iterm
        case .sixel: mode = .sixel
        case .blocks: mode = symbols.applied(to: .blocks)
        case .ascii: mode = .ascii
        }
        guard let graphics = mode.graphics else {
            if mode == .blocks, symbols == .auto, profile == nil, onTerminal { profile = probe() }
            return PreviewSetup(mode: mode, graphics: nil, symbols: symbols.blockSymbols(profile: profile))
        }
        let insideTmux = TerminalEnvironment(environment).multiplexer == .tmux
        if profile == nil, onTerminal, insideTmux {
            // Whether tmux draws sixel itself, in which cell size, or passes pixels on (and so whether
            // they must be wrapped) is tmux's to say: tmux is asked, not the terminal outside it.
            // kitty asks the terminal outside too: whether it has Unicode placeholders is its to say.
            profile = TerminalProbe.profile(environment: environment, asksOuterTerminal: graphics == .kitty)
        } else if profile == nil, onTerminal, TerminalProbe.kernelCellPixels() == nil {
            profile = probe()
        }
        // Inside tmux the profile's cell: tmux's own answer where it gives one, the size its grid counts an image's cells in.
        let cell = (insideTmux ? profile?.cellPixels : nil) ?? TerminalProbe.kernelCellPixels() ?? profile?.cellPixels ?? .fallback
        let tmuxSixel = graphics == .sixel && profile?.tmuxDrawsSixel == true
        let options = GraphicsOptions(
            graphics: graphics, columns: box.columns, rows: box.rows, cell: cell,
            background: background ?? profile?.background ?? RGBColor(red: 0, green: 0, blue: 0),
            colorRegisters: profile?.colorRegisters ?? 256, passthrough: (profile?.passthrough ?? false) && !tmuxSixel,
            wholeCells: tmuxSixel, kittyPlaceholders: graphics == .kitty && profile?.kittyPlaceholders == true)
        return PreviewSetup(mode: mode, graphics: options)
    }
}

/// How the browser draws its pane: the mode it starts in, the modes `m` cycles through, the block
/// characters, and what the terminal said pixels need.
struct BrowserModes {
    var mode: PreviewMode
    var modes: [PreviewMode]
    var symbols: BlockSymbols
    var graphics: GraphicsTerminal

    /// Asks the terminal once (the browser always has one), before ncurses takes it: `auto`
    /// starts in the best pixel mode found, else blocks, or ASCII without colours; an explicit
    /// mode is obeyed even when the terminal did not offer it. `m` cycles through the pixel
    /// modes found and the two text modes, and the explicit one.
    static func detect(
        _ choice: ModeChoice?, symbols: SymbolsChoice = .auto, colors: ColorMode, environment: [String: String]
    ) -> BrowserModes {
        let profile = TerminalProbe.profile(environment: environment)
        let text: [PreviewMode] = colors == .none || symbols == .ascii ? [.ascii, .blocks] : [.blocks, .ascii]
        let mode: PreviewMode
        switch choice ?? .auto {
        case .auto: mode = profile.autoMode.graphics == nil ? text[0] : profile.autoMode
        case .kitty: mode = .kitty
        case .iterm: mode = .iterm
        case .sixel: mode = .sixel
        case .blocks: mode = symbols.applied(to: .blocks)
        case .ascii: mode = .ascii
        }
        var modes = profile.availableGraphics.map(PreviewMode.init) + text
        if !modes.contains(mode) { modes.insert(mode, at: 0) }
        return BrowserModes(
            mode: mode, modes: modes, symbols: symbols.blockSymbols(profile: profile), graphics: GraphicsTerminal(profile: profile))
    }
}
