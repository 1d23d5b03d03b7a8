import Foundation

/// Writes diagnostics to stderr, unbuffered, so they interleave correctly with stdout.
enum StandardError {
    static func print(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
