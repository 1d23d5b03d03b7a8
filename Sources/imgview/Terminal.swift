import ArgumentParser
import ImgviewTerminal
import ImgviewTerminalDetection

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Imgview {
    /// `imgview terminal`: what imgview found out about this terminal, and why.
    struct Terminal: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "terminal",
            abstract: "Show what imgview found out about this terminal and the mode auto picks.",
            discussion: """
                Reads the environment (TERM, TERM_PROGRAM, LC_TERMINAL, KITTY_WINDOW_ID, TMUX, …), then \
                asks the controlling terminal one batched question (XTVERSION, the kitty graphics query, \
                cell size, synchronized output, sixel colours, background, DA1) and waits at most \
                --timeout for the answer. Without a controlling terminal nothing is asked.
                """)

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print the findings as one JSON object.")
        var json = false

        @Option(help: ArgumentHelp("How long to wait for the terminal's answer, in milliseconds.", valueName: "ms"))
        var timeout: Int = 400

        func validate() throws {
            guard (1...10_000).contains(timeout) else { throw ValidationError("--timeout takes 1 to 10000 milliseconds") }
        }

        func run() throws {
            let profile = TerminalProbe.profile(timeout: .milliseconds(timeout))
            StandardOutput.write(json ? profile.json : profile.report)
        }
    }
}
