import ImgviewFetching
import ImgviewSupport
import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// What `show` and `info` say on stderr, when it is a terminal, while an image is slow to come:
/// after a second of waiting, how much has arrived; once nothing has arrived for a while, that
/// the transfer has stalled and for how long. The line is erased before anything else prints.
///
/// A fast or cached image prints nothing; a pipe or a file never sees the line.
final class WaitingProgress: @unchecked Sendable {
    /// How long an image may take before the line appears.
    static let delay = Duration.seconds(1)
    /// How long without a byte before the line says the transfer has stalled.
    static let stallAfter = Duration.seconds(3)
    /// How often the line is redrawn.
    static let tick = Duration.milliseconds(250)

    private let enabled: Bool
    private let lock = ThreadLock()
    private var label = ""
    private var started = ContinuousClock.now
    private var lastByte = ContinuousClock.now
    private var received: Int64 = 0
    private var expected: Int64?
    private var isDrawn = false
    /// Set when the wait ends: a tick already past its cancellation check then draws nothing.
    private var isFinished = false

    init(enabled: Bool) {
        self.enabled = enabled
    }

    /// For `show` and `info`: on when stderr is a terminal.
    static func forStandardError() -> WaitingProgress {
        WaitingProgress(enabled: isatty(STDERR_FILENO) == 1)
    }

    /// Runs `body`, which fetches `label` reporting through the progress it is given, with the
    /// line drawn while it waits and erased when it ends, however it ends.
    func track<T>(_ label: String, _ body: (@escaping TransferProgress) async throws -> T) async throws -> T {
        guard enabled else { return try await body { _, _ in } }
        lock.withLock {
            // Short enough that the line never wraps, which `\r` could not erase.
            let label = TerminalText.sanitized(label)
            self.label = label.count > 40 ? "…" + label.suffix(39) : label
            started = .now
            lastByte = .now
            received = 0
            expected = nil
            isFinished = false
        }
        let ticker = Task(executorPreference: PreferredExecutor.current) { [self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.tick)
                if Task.isCancelled { break }
                lock.withLock { draw(now: .now) }
            }
        }
        defer {
            ticker.cancel()
            lock.withLock {
                isFinished = true
                erase()
            }
        }
        return try await body { [self] received, expected in
            lock.withLock {
                if received > self.received { lastByte = .now }
                self.received = received
                self.expected = expected
            }
        }
    }

    /// The line for the state at `now`; nil before the delay.
    static func line(
        label: String, waited: Duration, sinceLastByte: Duration, received: Int64, expected: Int64?
    ) -> String? {
        guard waited >= delay else { return nil }
        var line = label + ": "
        if let expected, expected > 0 {
            line += "\(ByteCount.format(received)) of \(ByteCount.format(expected))"
            line += String(printf: " (%d%%)", Int(min(1, Double(received) / Double(expected)) * 100))
        } else if received > 0 {
            line += "\(ByteCount.format(received))"
        } else {
            line += "waiting for the server"
        }
        if sinceLastByte >= stallAfter {
            line += ", stalled: nothing for \(Int(sinceLastByte.components.seconds)) s"
        }
        return line
    }

    private func draw(now: ContinuousClock.Instant) {
        guard !isFinished,
            let line = Self.line(
                label: label, waited: now - started, sinceLastByte: now - lastByte, received: received, expected: expected)
        else { return }
        _ = try? FileDescriptor.standardError.writeAll(Self.lineStart + Array(line.utf8))
        isDrawn = true
    }

    private func erase() {
        guard isDrawn else { return }
        _ = try? FileDescriptor.standardError.writeAll(Self.lineStart)
        isDrawn = false
    }

    /// Back to the start of the line, erased: where the line is drawn again.
    private static let lineStart = [UInt8(ascii: "\r")] + EscapeSequence.eraseToEndOfLine
}
