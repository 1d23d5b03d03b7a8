import ArgumentParser
import ImgviewImaging
import ImgviewSupport
import ImgviewTerminalDetection

/// The `--symbols` choices (and `IMGVIEW_SYMBOLS`), as chafa's: which characters a text preview
/// draws with, or `auto` for halves and quadrants, with sextants where the terminal's answer
/// names one that draws them itself.
enum SymbolsChoice: String, ExpressibleByArgument, CaseIterable {
    case auto, block, quad, sextant, ascii

    /// `option` when given, else `IMGVIEW_SYMBOLS`, else the config file's, else `auto`.
    static func setting(_ option: SymbolsChoice?, environment: [String: String]) throws -> Resolved<SymbolsChoice> {
        try Settings.shared.resolve(
            "symbols", commandLine: option, environment: environment,
            fromEnvironment: { value in
                guard let choice = SymbolsChoice(rawValue: value.lowercased()) else { throw SymbolsError(value: value) }
                return choice
            },
            fromFile: { Settings.text($0).flatMap(SymbolsChoice.init(rawValue:)) }, standard: .auto)
    }

    /// The block set a blocks preview draws with: the one named, else what `profile` found (else quadrants).
    func blockSymbols(profile: TerminalProfile?) -> BlockSymbols {
        switch self {
        case .block: .block
        case .quad: .quad
        case .sextant: .sextant
        case .auto, .ascii: profile?.symbols ?? .quad
        }
    }

    /// `mode` as drawn with these symbols: `ascii` turns blocks into ASCII; pixel modes stay.
    func applied(to mode: PreviewMode) -> PreviewMode {
        self == .ascii && mode == .blocks ? .ascii : mode
    }
}

/// An `IMGVIEW_SYMBOLS` that names no symbol set: a usage error, as a bad `--symbols` is.
struct SymbolsError: UserFacingError {
    let value: String
    var message: String {
        "IMGVIEW_SYMBOLS=\(TerminalText.sanitized(value)) is not a symbol set (auto, block, quad, sextant or ascii)"
    }
    var exitStatus: ExitStatus { .usage }
}
