import Foundation

/// Writes results to stdout directly, so nothing waits in a buffer when the process exits or is piped.
enum StandardOutput {
    static func write(_ text: String) {
        write(Data(text.utf8))
    }

    static func write(_ data: Data) {
        FileHandle.standardOutput.write(data)
    }
}
