import FlyingSocks
import Foundation

/// A response body that the server streams chunk by chunk, slowly or cut short when a fault says so,
/// and that records in the request log how far it got.
struct FaultyBody: AsyncBufferedSequence, Sendable {
    typealias Element = UInt8

    /// Where the bytes come from.
    enum Source: Sendable {
        case data(Data)
        case file(URL)
    }

    let source: Source
    /// Where the body starts (a range's first byte); `length`, `hold` and truncation count from the body's start, not this.
    var start = 0
    /// Bytes to send before stopping; with `truncated` the connection is then closed mid-body.
    let length: Int
    let truncated: Bool
    let chunkSize: Int
    let delayPerChunk: Duration
    let hold: Fault.Hold?
    let tracker: BodyTracker

    func makeAsyncIterator() -> Iterator {
        Iterator(body: self)
    }

    struct Iterator: AsyncBufferedIteratorProtocol {
        let body: FaultyBody
        var offset = 0
        var file: FileHandle?

        init(body: FaultyBody) {
            self.body = body
            self.offset = body.start
        }

        mutating func next() async throws -> UInt8? {
            try await nextBuffer(suggested: 1)?.first
        }

        mutating func nextBuffer(suggested count: Int) async throws -> Data? {
            guard offset < body.length else {
                body.tracker.sent(upTo: offset - body.start)
                if body.truncated {
                    // Throwing makes the server close the socket with the body short of Content-Length.
                    body.tracker.finish(aborted: true)
                    throw CancellationError()
                }
                body.tracker.finish(aborted: false)
                return nil
            }
            if body.delayPerChunk > .zero { try await Task.sleep(for: body.delayPerChunk) }
            if let hold = body.hold, offset >= hold.after {
                body.tracker.sent(upTo: offset - body.start)
                await hold.gate.wait()
                try Task.checkCancellation()
            }
            var size = Swift.min(body.chunkSize, body.length - offset)
            // A held body stops exactly where it was told to.
            if let hold = body.hold, hold.after > offset { size = Swift.min(size, hold.after - offset) }
            let chunk: Data
            switch body.source {
            case .data(let data):
                chunk = data.subdata(in: data.startIndex + offset..<data.startIndex + offset + size)
            case .file(let url):
                if file == nil {
                    file = try FileHandle(forReadingFrom: url)
                    try file?.seek(toOffset: UInt64(offset))
                }
                chunk = try file?.read(upToCount: size) ?? Data()
                guard !chunk.isEmpty else { throw CancellationError() }
            }
            // What was handed over last time has been written by now: the server asks for more only then.
            body.tracker.sent(upTo: offset - body.start)
            offset += chunk.count
            return chunk
        }
    }
}

/// Records a response body's progress in the request log; a body dropped before its end counts as aborted.
final class BodyTracker: Sendable {
    private let log: RequestLog
    private let sequence: Int

    init(log: RequestLog, sequence: Int) {
        self.log = log
        self.sequence = sequence
    }

    func sent(upTo bytes: Int) {
        log.update(sequence) { $0.bodyBytesSent = max($0.bodyBytesSent, bytes) }
    }

    func finish(aborted: Bool) {
        log.update(sequence) { request in
            guard request.outcome == .inProgress else { return }
            request.outcome = aborted ? .aborted : .completed
        }
    }

    deinit {
        finish(aborted: true)
    }
}
