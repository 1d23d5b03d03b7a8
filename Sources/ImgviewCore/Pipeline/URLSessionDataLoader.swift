import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Loads over HTTP(S) with `URLSession`, streaming each body chunk to its sink as it arrives.
///
/// On Linux `URLSession` has neither `bytes(for:)` nor an HTTP cache, so the body comes through
/// the data delegate and nothing is held in memory beyond a chunk.
public final class URLSessionDataLoader: DataLoading {
    private let session: URLSession
    private let router: TaskRouter

    /// - Parameters:
    ///   - idleTimeout: how long connecting, or a pause in the body, may last.
    ///   - maxConnectionsPerHost: concurrent transfers to one host.
    public init(idleTimeout: TimeInterval = 30, maxConnectionsPerHost: Int = 8) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = idleTimeout
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpMaximumConnectionsPerHost = maxConnectionsPerHost
        // Bounded, so a body arriving faster than it is written waits in the socket, not in memory.
        let queue = BoundedOperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "imgview.urlsession"
        let router = TaskRouter()
        self.router = router
        self.session = URLSession(configuration: configuration, delegate: router, delegateQueue: queue)
    }

    deinit {
        session.invalidateAndCancel()
    }

    public func load(_ request: URLRequest, into sink: any TransferSink) async throws -> ResponseHead {
        let task = session.dataTask(with: request)
        let result: ResponseHead
        do {
            result = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    router.register(task.taskIdentifier, TaskRouter.Transfer(sink: sink, continuation: continuation))
                    task.resume()
                }
            } onCancel: {
                task.cancel()
            }
        } catch let error as URLError where error.code == .cancelled {
            // Linux throws URLError.cancelled, not CancellationError, when the task is cancelled.
            if Task.isCancelled { throw CancellationError() }
            throw error
        }
        return result
    }
}

/// The session's delegate: sends each task's events to the sink of the transfer that started it.
private final class TaskRouter: NSObject, URLSessionDataDelegate, Sendable {
    struct Transfer {
        let sink: any TransferSink
        let continuation: CheckedContinuation<ResponseHead, any Error>
        var head: ResponseHead?
        var failure: (any Error)?
    }

    private let transfers = Locked<[Int: Transfer]>([:])

    func register(_ identifier: Int, _ transfer: Transfer) {
        transfers.withLock { $0[identifier] = transfer }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        guard let http = response as? HTTPURLResponse else {
            completionHandler(.cancel)
            return
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        let head = ResponseHead(
            status: http.statusCode, headers: headers, url: http.url ?? dataTask.originalRequest?.url ?? URL(fileURLWithPath: "/"),
            expectedLength: http.expectedContentLength >= 0 ? http.expectedContentLength : nil)
        let accepted = transfers.withLock { transfers -> Bool in
            guard var transfer = transfers[dataTask.taskIdentifier] else { return false }
            transfer.head = head
            do {
                try transfer.sink.receive(head)
            } catch {
                transfer.failure = error
            }
            transfers[dataTask.taskIdentifier] = transfer
            return transfer.failure == nil
        }
        completionHandler(accepted ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let failed = transfers.withLock { transfers -> Bool in
            guard var transfer = transfers[dataTask.taskIdentifier], transfer.failure == nil else { return false }
            do {
                try transfer.sink.receive(data)
                return false
            } catch {
                transfer.failure = error
                transfers[dataTask.taskIdentifier] = transfer
                return true
            }
        }
        // Not from this queue: cancel() waits for the session's queue, which may be waiting for this one.
        if failed { DispatchQueue.global().async { dataTask.cancel() } }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let failure = transfer.failure {
            transfer.continuation.resume(throwing: failure)
        } else if let error {
            transfer.continuation.resume(throwing: error)
        } else if let head = transfer.head {
            transfer.continuation.resume(returning: head)
        } else {
            transfer.continuation.resume(throwing: URLError(.badServerResponse))
        }
    }
}
