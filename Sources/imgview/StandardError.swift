import ImgviewSupport
import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Writes diagnostics to stderr, unbuffered, so they interleave correctly with stdout.
enum StandardError {
    /// Prints `text` and a newline, each line stripped of control characters and escape sequences.
    ///
    /// Messages already sanitise what they quote; this is the last line of defence, so that no
    /// path — an argument echoed by the parser, a library's error text — reaches the terminal raw.
    static func print(_ text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { TerminalText.sanitized(String($0)) }
        _ = try? FileDescriptor.standardError.writeAll((lines.joined(separator: "\n") + "\n").utf8)
    }
}
