import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Appends each key and mouse event the browser reads, one line each (`right`, `character ?`,
/// `mouse …`, `resized 100x30`), so a test that types into a real terminal can tell a key that
/// never arrived from one that arrived and did something else (env `IMGVIEW_INPUT_LOG`).
@MainActor
final class InputLog {
    private let handle: LogFile

    init?(path: String) {
        guard let handle = LogFile(path: path) else { return nil }
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
        handle.writeLine(line)
    }
}
