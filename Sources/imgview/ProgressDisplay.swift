import ImgviewProcess
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

/// The progress bar `get` draws on stderr when it is a terminal: bytes, percent, rate and ETA.
final class ProgressDisplay: @unchecked Sendable {
    private let enabled: Bool
    private let total: Int
    private let lock = ThreadLock()
    private let started = ContinuousClock.now
    private var lastDraw = ContinuousClock.now - .seconds(1)
    private var transfers: [String: (received: Int64, expected: Int64?)] = [:]
    private var finished = 0
    private var finishedBytes: Int64 = 0

    /// The bar erased should the process end abruptly, so the last line is not left behind it.
    private let restoration: RestorationHandle?

    init(enabled: Bool, total: Int) {
        self.enabled = enabled
        self.total = total
        restoration = enabled ? ProcessSignals.restoring(TerminalRestoration(bytes: Self.lineStart, to: STDERR_FILENO)) : nil
    }

    deinit {
        restoration?.end()
    }

    func update(_ label: String, received: Int64, expected: Int64?) {
        guard enabled else { return }
        lock.withLock {
            transfers[label] = (received, expected)
            // Ten frames a second is smooth enough and costs nothing.
            guard ContinuousClock.now - lastDraw >= .milliseconds(100) else { return }
            lastDraw = .now
            draw()
        }
    }

    func done(_ label: String) {
        guard enabled else { return }
        lock.withLock {
            finished += 1
            finishedBytes += transfers.removeValue(forKey: label)?.received ?? 0
        }
    }

    /// Erases the bar so a line can be printed.
    func clear() {
        guard enabled else { return }
        lock.withLock { _ = try? FileDescriptor.standardError.writeAll(Self.lineStart) }
    }

    func finish() { clear() }

    private func draw() {
        let received = transfers.values.reduce(finishedBytes) { $0 + $1.received }
        let elapsed = (ContinuousClock.now - started).seconds
        let rate = elapsed > 0 ? Double(received) / elapsed : 0
        var line: String
        if total == 1, let (label, transfer) = transfers.first {
            line = TerminalText.sanitized(label)
            if let expected = transfer.expected, expected > 0 {
                let fraction = min(1, Double(transfer.received) / Double(expected))
                let width = 24
                let filled = Int(fraction * Double(width))
                line +=
                    String(printf: " %3d%% ", Int(fraction * 100)) + "[" + String(repeating: "=", count: filled)
                    + String(repeating: " ", count: width - filled) + "] "
                line += "\(ByteCount.format(transfer.received))/\(ByteCount.format(expected))"
                if rate > 0 {
                    let remaining = Double(expected - transfer.received) / rate
                    line += String(printf: "  ETA %d:%02d", Int(remaining) / 60, Int(remaining) % 60)
                }
            } else {
                line += " \(ByteCount.format(transfer.received))"
            }
        } else {
            line = "\(finished)/\(total) images  \(ByteCount.format(received))"
        }
        line += "  \(ByteCount.format(Int64(rate)))/s"
        _ = try? FileDescriptor.standardError.writeAll(Self.lineStart + Array(line.utf8))
    }

    /// Back to the start of the line, erased: where the bar is drawn again.
    private static let lineStart = [UInt8(ascii: "\r")] + EscapeSequence.eraseToEndOfLine
}
