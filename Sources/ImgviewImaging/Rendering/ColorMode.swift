/// How many colours the output may use.
public enum ColorMode: String, Sendable, CaseIterable {
    /// No colour escapes at all: the terminal's own foreground and background.
    case none
    case sixteen = "16"
    case twoFiftySix = "256"
    /// 24-bit truecolor.
    case full

    /// What the terminal in `environment` supports, by the usual conventions.
    ///
    /// `NO_COLOR` (any non-empty value, no-color.org) wins; then `COLORTERM=truecolor|24bit`;
    /// then a `TERM` naming 256 colours; `dumb` or no `TERM` gets none; anything else 16.
    public static func detect(environment: [String: String]) -> ColorMode {
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return .none }
        let colorTerm = environment["COLORTERM"]?.lowercased() ?? ""
        if colorTerm == "truecolor" || colorTerm == "24bit" { return .full }
        let term = environment["TERM"]?.lowercased() ?? ""
        if term.isEmpty || term == "dumb" { return .none }
        if term.contains("256color") || term.contains("truecolor") || term.contains("direct") { return .twoFiftySix }
        return .sixteen
    }

    /// The colours of a full-screen program's previews: what `detect` finds (so what `show`
    /// prints), or more where the terminfo entry knows more (a `-direct` one). The program
    /// writes the colours terminfo has no number for itself.
    public static func detect(environment: [String: String], terminfo: ColorMode) -> ColorMode {
        let detected = detect(environment: environment)
        guard detected != .none else { return .none }
        return allCases.firstIndex(of: terminfo)! > allCases.firstIndex(of: detected)! ? terminfo : detected
    }
}

/// Which characters the preview is drawn with.
public enum RenderMode: String, Sendable, CaseIterable {
    /// Printable ASCII, picked by glyph shape and coverage.
    case ascii
    /// Half, quarter and sextant block characters with a foreground and a background colour.
    case blocks
}
