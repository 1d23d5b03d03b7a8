import HTTPTypes
import ImgviewFetching

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Loads over HTTP(S) with libcurl directly: every transfer on one multi handle and one thread.
///
/// FoundationNetworking's URLSession runs on libcurl too, but hands every 16 KB chunk through a
/// `Data` copy, a new idle timer and an `OperationQueue` hop, and keeps a core busy while a
/// transfer waits (DECISIONS.md, "One HTTP client: libcurl, one multi handle"). Here the sink gets
/// libcurl's own buffer, connections are shared by every transfer of the loader, and the one
/// thread sleeps until a socket has data. Failures are `TransportError`s, as from URLSession.
public final class CurlDataLoader: DataLoading {
    private let driver: CurlDriver
    private let idleTimeout: TimeInterval

    /// - Parameters:
    ///   - idleTimeout: how long connecting, or a pause in the response, may last.
    ///   - keptConnections: idle connections kept open for the next requests.
    public init(idleTimeout: TimeInterval = 30, keptConnections: Int = 8) {
        self.idleTimeout = idleTimeout
        self.driver = CurlDriver(keptConnections: keptConnections)
    }

    deinit {
        driver.shutDown()
    }

    /// Threads this loader started: at most one, however many transfers ran (for tests).
    var threadsStarted: Int { driver.threadsStarted }

    public func load(_ request: HTTPRequest, adding headers: RequestHeaders, into sink: any TransferSink) async throws -> ResponseHead {
        try Task.checkCancellation()
        let transfer = CurlTransfer(request: request, headers: headers, sink: sink, idleTimeout: idleTimeout)
        let driver = self.driver
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                transfer.wait(with: continuation)
                driver.start(transfer)
            }
        } onCancel: {
            driver.cancel(transfer)
        }
    }
}
