import Foundation
import ImgviewCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Loads over HTTP(S) with libcurl directly, each transfer on a thread of its own.
///
/// FoundationNetworking's URLSession runs on libcurl too, but hands every 16 KB chunk through a
/// `Data` copy, a new idle timer and an `OperationQueue` hop; on a 100 MB body that made it half
/// as fast as curl (DECISIONS.md, "Downloads: libcurl directly"). Here the sink gets libcurl's own
/// buffer, and a sink that waits (a full disk queue) makes libcurl stop reading the socket.
/// The errors are the `URLError`s URLSession would have thrown, so callers cannot tell the two apart.
public final class CurlDataLoader: DataLoading {
    private let pool: CurlHandlePool
    private let idleTimeout: TimeInterval

    /// - Parameters:
    ///   - idleTimeout: how long connecting, or a pause in the response, may last.
    ///   - keptConnections: idle handles (with their open connections) kept for the next requests.
    public init(idleTimeout: TimeInterval = 30, keptConnections: Int = 8) {
        self.idleTimeout = idleTimeout
        self.pool = CurlHandlePool(capacity: keptConnections)
    }

    public func load(_ request: URLRequest, into sink: any TransferSink) async throws -> ResponseHead {
        try Task.checkCancellation()
        let transfer = CurlTransfer(request: request, sink: sink, idleTimeout: idleTimeout)
        let pool = self.pool
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // A blocking transfer on its own thread: libcurl's callbacks may wait for the sink
                // without holding up Swift's cooperative pool or another transfer.
                let thread = Thread {
                    let handle = pool.take()
                    let result = transfer.run(on: handle)
                    pool.giveBack(handle)
                    continuation.resume(with: result)
                }
                thread.name = "imgview.curl"
                thread.start()
            }
        } onCancel: {
            transfer.cancel()
        }
    }
}
