#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// How a command prints a listing: a table for a person at a terminal, stable text for scripts, or JSON.
enum OutputStyle: Equatable {
    case table(width: Int)
    case plain
    case json

    /// JSON when asked; else a table as wide as the terminal when stdout is one; else plain text.
    static func choose(json: Bool) -> OutputStyle {
        if json { return .json }
        guard isatty(STDOUT_FILENO) == 1 else { return .plain }
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return .table(width: Int(size.ws_col)) }
        if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns > 0 {
            return .table(width: columns)
        }
        return .table(width: 80)
    }
}
