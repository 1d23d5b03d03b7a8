internal import CLibraryMessages
import ImgviewSupport

/// What a C library prints on its own while it works, kept for the one-line error instead of
/// reaching the terminal raw.
///
/// dav1d, under libavif, logs to C's `stderr` (its default logger; libavif gives it no other):
/// "Error parsing sequence header", "Error parsing OBU data", a line each, unsanitised, ahead of
/// imgview's own line, and over the browser's screen. While a capture runs, C's `stderr` is a
/// stream that keeps what the capturing thread prints (libavif runs dav1d on the calling thread:
/// `maxThreads` is 1) and passes on what any other thread prints to the stream `stderr` was, so
/// another thread's error still reaches the terminal, whole and at once. File descriptor 2 is
/// never redirected: imgview's own lines, ncurses and the terminal are untouched. Each capture
/// keeps at most `IMGVIEW_LIBRARY_MESSAGES_CAPACITY` bytes; `stderr` is given back when the
/// last capture ends, whether its body returns or throws.
package enum LibraryMessages {
    /// The most distinct lines one error carries, and the most characters each.
    static let maxLines = 4
    static let maxLineLength = 160

    /// Runs `body` with what this thread prints on C's `stderr` captured; returns its result and
    /// those lines, sanitised, repeats dropped.
    package static func capture<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> (result: T, messages: [String]) {
        let start = imgview_library_messages_begin()
        guard start >= 0 else { return (try body(), []) }
        let result: T
        do throws(E) {
            result = try body()
        } catch {
            _ = end(from: start)
            throw error
        }
        return (result, end(from: start))
    }

    /// Ends the capture that began at `start`; returns its lines.
    private static func end(from start: Int) -> [String] {
        var buffer = [CChar](repeating: 0, count: Int(IMGVIEW_LIBRARY_MESSAGES_CAPACITY))
        var printed = 0
        let count = buffer.withUnsafeMutableBufferPointer { buffer in
            imgview_library_messages_end(start, buffer.baseAddress, buffer.count, &printed)
        }
        return lines(in: buffer.prefix(count).map { UInt8(bitPattern: $0) }, isCut: printed > count)
    }

    /// The distinct lines in `bytes`, each sanitised and shortened; `…` ends the last when more
    /// was printed than kept.
    static func lines(in bytes: [UInt8], isCut: Bool) -> [String] {
        var lines: [String] = []
        for line in bytes.split(whereSeparator: { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }) {
            var text = TerminalText.sanitized(String(decoding: line, as: UTF8.self)).trimmingSpaces()
            if text.count > maxLineLength { text = text.prefix(maxLineLength - 1) + "…" }
            guard !text.isEmpty, !lines.contains(text) else { continue }
            guard lines.count < maxLines else {
                lines[maxLines - 1] = lines[maxLines - 1].hasSuffix("…") ? lines[maxLines - 1] : lines[maxLines - 1] + " …"
                break
            }
            lines.append(text)
        }
        if isCut, let last = lines.indices.last, !lines[last].hasSuffix("…") { lines[last] += " …" }
        return lines
    }
}
