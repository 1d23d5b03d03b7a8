import ArgumentParser

extension Imgview.Info {
    /// `info` given images and nothing else, made without ArgumentParser: the command the parser
    /// would make of these arguments, every option at its default (`GlobalOptions.unset`,
    /// `ServiceOptions.unset`), checked as the parser checks it.
    ///
    /// The parser reflects over `info`'s options and its own (completion requests, help names)
    /// before it reads a single argument, which was most of what `info` of a small image cost
    /// (DECISIONS.md, "Start-up of `info`"). Nil when any argument could be an option (`-` alone,
    /// standard input, cannot), names `help`, or a check fails: the parser then makes the command,
    /// or says what is wrong, as it always did.
    static func withPlainArguments(_ arguments: [String]) -> Self? {
        guard !arguments.isEmpty, arguments.allSatisfy({ $0 == "-" || (!$0.hasPrefix("-") && $0 != "help") }) else { return nil }
        var info = Self()
        info.global = .unset
        info.images = arguments
        info.json = false
        info.network = .unset
        do {
            try info.global.validate()
            try info.network.validate()
            try info.validate()
        } catch {
            return nil
        }
        return info
    }
}
