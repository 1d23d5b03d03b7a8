import ArgumentParser
import ImgviewFetching
import ImgviewImaging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

extension RenderMode: ExpressibleByArgument {}

/// The `--colors` choices: a fixed `ColorMode`, or `auto` to ask the environment.
enum ColorChoice: String, ExpressibleByArgument, CaseIterable {
    case auto, none
    case sixteen = "16"
    case twoFiftySix = "256"
    case full

    /// `option` when given, else the config file's `colors`, else auto.
    static func setting(_ option: ColorChoice?) -> Resolved<ColorChoice> {
        Settings.shared.resolve(
            "colors", commandLine: option, fromFile: { Settings.text($0).flatMap(ColorChoice.init(rawValue:)) }, standard: .auto)
    }

    /// The mode to render with; `auto` follows NO_COLOR, COLORTERM and TERM.
    func resolved(environment: [String: String]) -> ColorMode {
        switch self {
        case .auto: ColorMode.detect(environment: environment)
        case .none: .none
        case .sixteen: .sixteen
        case .twoFiftySix: .twoFiftySix
        case .full: .full
        }
    }
}

/// The `--sort` choices.
enum ImageOrderChoice: String, ExpressibleByArgument, CaseIterable {
    case name, date, mtime, size

    var order: ImageOrder { ImageOrder(rawValue: rawValue) ?? .name }
}

/// A `COLSxROWS` box, as in `--size 80x24`.
struct CellBox: ExpressibleByArgument {
    var columns: Int
    var rows: Int

    /// How `--help` shows a default: `48x14`, as it is typed.
    var defaultValueDescription: String { "\(columns)x\(rows)" }

    init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
    }

    init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let columns = Int(parts[0]), let rows = Int(parts[1]),
            (1...10_000).contains(columns), (1...10_000).contains(rows)
        else { return nil }
        self.init(columns: columns, rows: rows)
    }

    /// The terminal's size when stdout is one (less a line for the prompt), else 80×24.
    static func terminalOrDefault() -> CellBox {
        var size = winsize()
        if isatty(STDOUT_FILENO) == 1, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 1 {
            return CellBox(columns: Int(size.ws_col), rows: Int(size.ws_row) - 1)
        }
        return CellBox(columns: 80, rows: 24)
    }
}

extension RGBColor: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(hex: argument)
    }

    public var defaultValueDescription: String {
        "#" + [red, green, blue].map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}
