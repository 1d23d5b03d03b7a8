import Foundation
import ImgviewCore

/// Appends each key and mouse event the browser reads, one line each (`right`, `character ?`,
/// `mouse …`, `resized 100x30`), so a test that types into a real terminal can tell a key that
/// never arrived from one that arrived and did something else (env `IMGVIEW_INPUT_LOG`).
@MainActor
final class InputLog {
    private let handle: FileHandle

    init?(path: String) {
        guard let handle = FileHandle.logFile(at: path) else { return nil }
        self.handle = handle
    }

    func record(_ input: TerminalInput) {
        let line: String
        switch input {
        case .key(.character(let character)):
            // A control character or a space would make the line ambiguous: its code instead.
            let scalars = character.unicodeScalars
            let printable = scalars.allSatisfy { $0.properties.isWhitespace == false && $0.value >= 0x21 && $0.value != 0x7F }
            line =
                printable ? "character \(character)" : "character U+" + scalars.map { String($0.value, radix: 16) }.joined(separator: "+")
        case .key(let key): line = "\(key)"
        case .mouse(let event): line = "mouse \(event)"
        case .resized(let size): line = "resized \(size.columns)x\(size.rows)"
        }
        handle.write(Data((line + "\n").utf8))
    }
}

extension FileHandle {
    /// A diagnostic log the browser writes lines to: the file at `path`, created empty, or nil
    /// when it cannot be opened (the browser then runs without it).
    static func logFile(at path: String) -> FileHandle? {
        guard FileManager.default.createFile(atPath: path, contents: nil) || FileManager.default.fileExists(atPath: path),
            let handle = FileHandle(forWritingAtPath: path)
        else { return nil }
        handle.seekToEndOfFile()
        return handle
    }
}
