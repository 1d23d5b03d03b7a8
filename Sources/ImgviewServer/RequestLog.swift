import Foundation
import ImgviewSupport

/// Every request the loopback server received, in order, for tests to inspect.
public final class RequestLog: Sendable {
    private let entries = Locked<[RecordedRequest]>([])

    init() {}

    /// Adds a request and returns its sequence number.
    func record(method: String, path: String, headers: [String: String], connection: UInt16? = nil) -> Int {
        entries.withLock { entries in
            var request = RecordedRequest(sequence: entries.count, method: method, path: path, headers: headers)
            request.connection = connection
            entries.append(request)
            return entries.count - 1
        }
    }

    func update(_ sequence: Int, _ change: (inout RecordedRequest) -> Void) {
        entries.withLock { entries in
            guard entries.indices.contains(sequence) else { return }
            change(&entries[sequence])
        }
    }

    /// The requests so far, optionally only those for `path`.
    public func requests(for path: String? = nil) -> [RecordedRequest] {
        entries.withLock { entries in
            guard let path else { return entries }
            return entries.filter { $0.path == path }
        }
    }

    /// Forgets every request (routes and their fault counters are kept).
    public func removeAll() {
        entries.withLock { $0.removeAll() }
    }
}
