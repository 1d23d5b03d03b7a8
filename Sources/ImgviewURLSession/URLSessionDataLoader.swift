import Foundation
import HTTPTypes
import ImgviewFetching
import ImgviewSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Loads over HTTP(S) with `URLSession`, streaming each body chunk to its sink as it arrives.
///
/// The other loader (`IMGVIEW_HTTP=urlsession`): libcurl directly is the default, since
/// FoundationNetworking keeps a core busy while a transfer waits and is slower on large bodies
/// (DECISIONS.md, "One HTTP client: libcurl, one multi handle"). On Linux `URLSession` has neither
/// `bytes(for:)` nor an HTTP cache, so the body comes through the data delegate and nothing is held
/// in memory beyond a chunk. The session keeps nothing on disk (no URL cache, no cookie or
/// credential storage), and follows redirects to http and https only, as libcurl is told to.
public final class URLSessionDataLoader: DataLoading {
    /// Redirects followed before giving up, as many as the libcurl loader follows.
    public static let maxRedirects = RedirectPolicy.maxRedirects

    private let session: URLSession
    private let router: TaskRouter

    /// - Parameters:
    ///   - idleTimeout: how long connecting, or a pause in the body, may last.
    ///   - maxConnectionsPerHost: concurrent transfers to one host.
    public init(idleTimeout: TimeInterval = 30, maxConnectionsPerHost: Int = 8) {
        let configuration = Self.ephemeralConfigurationCreatingNothing()
        configuration.timeoutIntervalForRequest = idleTimeout
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCredentialStorage = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpMaximumConnectionsPerHost = maxConnectionsPerHost
        // Bounded, so a body arriving faster than it is written waits in the socket, not in memory.
        let queue = BoundedOperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "imgview.urlsession"
        let router = TaskRouter(idleTimeout: idleTimeout)
        self.router = router
        self.session = URLSession(configuration: configuration, delegate: router, delegateQueue: queue)
    }

    deinit {
        session.invalidateAndCancel()
    }

    private static let configurationLock = NSLock()

    /// `URLSessionConfiguration.ephemeral`, made without FoundationNetworking creating folders in HOME.
    ///
    /// Making any configuration creates the shared URL cache and cookie storage, whose initialisers
    /// create `~/.cache/org.swift.foundation.URLCache/<name>` and `~/.local/share/<name>` even though
    /// this loader uses neither (FoundationNetworking's `URLCache.init` and `HTTPCookieStorage.init`).
    /// They find those places through `XDG_CACHE_HOME` and `XDG_DATA_HOME`, and give up quietly
    /// when the folder cannot be made; so for the moment the shared objects are made, both point
    /// below `/dev/null`. Under a lock, since `setenv` is process-wide; best done before other
    /// threads start, as the commands do.
    private static func ephemeralConfigurationCreatingNothing() -> URLSessionConfiguration {
        configurationLock.lock()
        defer { configurationLock.unlock() }
        let names = ["XDG_CACHE_HOME", "XDG_DATA_HOME"]
        let saved = names.map { getenv($0).map { String(cString: $0) } }
        for name in names { setenv(name, "/dev/null/imgview-creates-nothing-here", 1) }
        defer {
            for (name, value) in zip(names, saved) {
                if let value { setenv(name, value, 1) } else { unsetenv(name) }
            }
        }
        return URLSessionConfiguration.ephemeral
    }

    public func load(_ request: HTTPRequest, adding headers: RequestHeaders, into sink: any TransferSink) async throws -> ResponseHead {
        guard let url = request.url, let scheme = url.scheme?.lowercased() else {
            throw TransportError.unsupportedScheme("", redirected: false)
        }
        guard scheme == "http" || scheme == "https" else { throw TransportError.unsupportedScheme(scheme, redirected: false) }
        let task = session.dataTask(with: Self.urlRequest(headers.applied(to: request), url: url))
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    router.register(
                        task.taskIdentifier, TaskRouter.Transfer(request: request, headers: headers, sink: sink, continuation: continuation)
                    )
                    task.resume()
                }
            } onCancel: {
                task.cancel()
            }
        } catch let error as URLError where error.code == .cancelled && Task.isCancelled {
            // Linux throws URLError.cancelled, not CancellationError, when the task is cancelled.
            throw CancellationError()
        }
    }

    /// `request` for URLSession, its fields alone (nothing of the session's or of an earlier hop).
    static func urlRequest(_ request: HTTPRequest, url: URL) -> URLRequest {
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData)
        urlRequest.httpMethod = request.method.rawValue
        for field in request.headerFields {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name.rawName)
        }
        // FoundationNetworking has libcurl decode compressed bodies, and libcurl takes a stream cut
        // before its end for a whole one; so bodies are asked for as they are. One compressed
        // anyway arrives with no decoded length, and the pipeline judges it by the image's end.
        if request.headerFields[.acceptEncoding] == nil {
            urlRequest.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        }
        return urlRequest
    }
}

/// The session's delegate: sends each task's events to the sink of the transfer that started it.
private final class TaskRouter: NSObject, URLSessionDataDelegate, Sendable {
    struct Transfer {
        /// The request as first made, with imgview's own fields only, and the user's.
        let request: HTTPRequest
        let headers: RequestHeaders
        let sink: any TransferSink
        let continuation: CheckedContinuation<ResponseHead, any Error>
        var head: ResponseHead?
        var failure: (any Error)?
        var received: Int64 = 0
        var redirects = 0
    }

    private let transfers = Locked<[Int: Transfer]>([:])
    private let idleTimeout: TimeInterval

    init(idleTimeout: TimeInterval) {
        self.idleTimeout = idleTimeout
    }

    func register(_ identifier: Int, _ transfer: Transfer) {
        transfers.withLock { $0[identifier] = transfer }
    }

    /// Follows a redirect only to http or https, and at most `maxRedirects` times.
    ///
    /// The Location is read and resolved here rather than trusting `newRequest`: FoundationNetworking
    /// turns `Location: file:///etc/passwd` into a GET of `/etc/passwd` on the same host.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping (URLRequest?) -> Void
    ) {
        guard let locationText = response.value(forHTTPHeaderField: "Location") else {
            // Nowhere to go: the redirect is the answer, for the pipeline to name.
            completionHandler(nil)
            return
        }
        let location = URL(string: locationText, relativeTo: response.url)?.absoluteURL
        let scheme = location?.scheme?.lowercased() ?? ""
        let next = transfers.withLock { transfers -> Result<URLRequest, TransportError>? in
            guard var transfer = transfers[task.taskIdentifier] else { return nil }
            transfer.redirects += 1
            let next: Result<URLRequest, TransportError>
            if let location, scheme == "http" || scheme == "https" {
                if transfer.redirects > URLSessionDataLoader.maxRedirects {
                    next = .failure(.tooManyRedirects(limit: URLSessionDataLoader.maxRedirects))
                } else {
                    // Made afresh from the first request each time, not from `request`, which
                    // carries every field on: the user's only while at its origin (RedirectPolicy).
                    let hop = RedirectPolicy.request(transfer.request, redirectedTo: location, adding: transfer.headers)
                    next = .success(URLSessionDataLoader.urlRequest(hop, url: location))
                }
            } else {
                next = .failure(location == nil ? .badResponse("malformed redirect") : .unsupportedScheme(scheme, redirected: true))
            }
            if case .failure(let refusal) = next { transfer.failure = refusal }
            transfers[task.taskIdentifier] = transfer
            return next
        }
        guard case .success(let hop)? = next else {
            completionHandler(nil)
            // Not from this queue: cancel() waits for the session's queue, which may be waiting for this one.
            DispatchQueue.global().async { task.cancel() }
            return
        }
        completionHandler(hop)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        guard let http = response as? HTTPURLResponse else {
            completionHandler(.cancel)
            return
        }
        var head = Self.head(of: http, task: dataTask)
        let accepted = transfers.withLock { transfers -> Bool in
            guard var transfer = transfers[dataTask.taskIdentifier], transfer.failure == nil else { return false }
            do {
                head.expectedLength = try ResponseHead.contentLength(in: head.fields)
                transfer.head = head
                try transfer.sink.receive(head)
            } catch {
                transfer.failure = error
            }
            transfers[dataTask.taskIdentifier] = transfer
            return transfer.failure == nil
        }
        completionHandler(accepted ? .allow : .cancel)
        // `.cancel` alone let FoundationNetworking read the rest of the body before it gave up.
        if !accepted { DispatchQueue.global().async { dataTask.cancel() } }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let failed = transfers.withLock { transfers -> Bool in
            guard var transfer = transfers[dataTask.taskIdentifier], transfer.failure == nil else { return false }
            do {
                try transfer.sink.receive(data)
                transfer.received += Int64(data.count)
                transfers[dataTask.taskIdentifier] = transfer
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
        } else if let error = error as? URLError, error.code == .cancelled {
            transfer.continuation.resume(throwing: error)
        } else if let error {
            transfer.continuation.resume(throwing: transportError(error, transfer: transfer))
        } else if let head = transfer.head {
            transfer.continuation.resume(returning: head)
        } else if let http = task.response as? HTTPURLResponse, (300..<400).contains(http.statusCode) {
            // A redirect it did not follow (no Location): FoundationNetworking ends the task
            // without handing over the response, whose head is the answer.
            var head = Self.head(of: http, task: task)
            do {
                head.expectedLength = try ResponseHead.contentLength(in: head.fields)
                try transfer.sink.receive(head)
                transfer.continuation.resume(returning: head)
            } catch {
                transfer.continuation.resume(throwing: error)
            }
        } else {
            transfer.continuation.resume(throwing: TransportError.connectionLost(received: 0))
        }
    }

    /// The head of `response`, with no length yet (`ResponseHead.contentLength` reads it strictly).
    private static func head(of response: HTTPURLResponse, task: URLSessionTask) -> ResponseHead {
        var lines: [(name: String, value: String)] = []
        for (name, value) in response.allHeaderFields {
            if let name = name as? String, let value = value as? String { lines.append((name, value)) }
        }
        return ResponseHead(
            status: response.statusCode, headerLines: lines, url: response.url ?? task.originalRequest?.url ?? URL(fileURLWithPath: "/"),
            expectedLength: nil)
    }

    /// The kind of failure behind a `URLError`, as `TransportError` names it for both loaders.
    ///
    /// FoundationNetworking reports several libcurl failures as `.unknown` with libcurl's sentence
    /// ("transfer closed with N bytes remaining to read", "SSL connect error"); a head already
    /// received means the body broke off.
    private func transportError(_ error: any Error, transfer: Transfer) -> TransportError {
        guard let error = error as? URLError else { return .local(String(describing: error)) }
        let detail = TerminalText.sanitized(error.localizedDescription)
        switch error.code {
        case .cannotConnectToHost: return .connectionRefused
        case .cannotFindHost, .dnsLookupFailed: return .hostNotFound(error.failingURL?.host ?? "")
        case .notConnectedToInternet, .internationalRoamingOff, .dataNotAllowed: return .unreachable
        case .timedOut: return .timedOut(seconds: idleTimeout, received: transfer.received)
        case .networkConnectionLost: return .connectionLost(received: transfer.received)
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
            .serverCertificateHasUnknownRoot, .clientCertificateRejected, .clientCertificateRequired:
            return .tls(detail)
        case .httpTooManyRedirects, .redirectToNonExistentLocation: return .tooManyRedirects(limit: URLSessionDataLoader.maxRedirects)
        case .unsupportedURL:
            // Only http and https are sent (`load` refuses the rest): this is libcurl refusing an
            // answer with no status line ("HTTP/0.9").
            let scheme = error.failingURL?.scheme?.lowercased() ?? ""
            if scheme == "http" || scheme == "https" { return .badResponse("the answer does not start with an HTTP status line") }
            return .unsupportedScheme(scheme, redirected: false)
        case .badServerResponse, .cannotParseResponse, .zeroByteResource:
            return transfer.head == nil ? .connectionLost(received: 0) : .badResponse(detail)
        case .cannotDecodeContentData, .cannotDecodeRawData: return .badResponse(detail)
        default:
            if transfer.head != nil { return .connectionLost(received: transfer.received) }
            // libcurl's CURLE_OUT_OF_MEMORY, which it returns for a header line over 100 kB.
            if detail == "Out of memory" { return .badResponse("a header line longer than 100 kB") }
            if detail.localizedCaseInsensitiveContains("ssl") || detail.localizedCaseInsensitiveContains("tls") { return .tls(detail) }
            return .local(detail)
        }
    }
}
