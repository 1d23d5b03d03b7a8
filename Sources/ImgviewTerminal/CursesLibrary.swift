internal import CNCurses
import ImgviewSupport

/// ncursesw, opened when the browser takes over a terminal (`SharedLibrary`): it and the libtinfo
/// it needs are loaded by no other command. `show`, `info`, `get` and `--version` do not start it.
enum CursesLibrary {
    static let soname = "libncursesw.so.6"
    static let package = "libncursesw6"

    nonisolated(unsafe) private static let loaded = load(soname: soname, package: package)

    /// ncurses' functions and variables, or why they cannot be had (exit 12, naming the package).
    /// The table lives as long as the process, so the helpers in the shim can be handed a pointer to it.
    static func functions() throws(TerminalError) -> UnsafePointer<imgview_ncurses> {
        try loaded.get()
    }

    /// Opens `soname`; the tests point it at a library that is not there.
    static func load(soname: String, package: String) -> Result<UnsafePointer<imgview_ncurses>, TerminalError> {
        SharedLibrary.open(soname, package: package)
            .flatMap { $0.functions(imgview_ncurses_load) }
            .map { table in
                let stored = UnsafeMutablePointer<imgview_ncurses>.allocate(capacity: 1)
                stored.initialize(to: table)
                return UnsafePointer(stored)
            }
            .mapError { .libraryMissing($0) }
    }
}

/// The variables ncurses exports, read where the library keeps them: they change as screens
/// start, resize and end.
extension imgview_ncurses {
    /// The standard screen of the current terminal (`stdscr`).
    var stdscr: UnsafeMutablePointer<WINDOW>? { stdscr_address.pointee }
    /// What ncurses believes the terminal shows now (`curscr`).
    var curscr: UnsafeMutablePointer<WINDOW>? { curscr_address.pointee }
    /// How many colours the terminal has, once colours are started (`COLORS`).
    var colors: Int32 { COLORS_address.pointee }
    /// How many colour pairs the terminal has, once colours are started (`COLOR_PAIRS`).
    var colorPairs: Int32 { COLOR_PAIRS_address.pointee }
}
