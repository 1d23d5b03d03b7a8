internal import CCurl
import Dispatch
import HTTPTypes
internal import ImgviewCompression
import ImgviewFetching
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// One request on a libcurl easy handle, its body streamed into a sink, driven by a `CurlDriver`.
///
/// libcurl calls back on the driver's thread, so everything but the caller's continuation is
/// touched by that thread only. Redirects are followed here, not by libcurl, which would send the
/// user's headers on to another host (`RedirectPolicy`): a redirect's headers end the hop, its
/// body is dropped, and the driver sends the same easy handle (and connection cache) to the
/// next URL. The head reaches the sink once the final response's headers ended, so it is that
/// response's.
final class CurlTransfer: @unchecked Sendable {
    /// libcurl's receive buffer: larger than its 16 KB default, fewer reads of the socket.
    static let receiveBufferSize = 256 << 10
    static let maxRedirects = RedirectPolicy.maxRedirects
    /// The most of a redirect's body read (and dropped) to keep its connection for the next
    /// request; a longer one closes the connection instead.
    static let redirectBodyLimit = 64 << 10
    /// The longest idle timeout honoured (a year): `--connect-timeout inf` means "never", not a crash.
    static let longestIdleTimeout: TimeInterval = 365 * 24 * 3600

    /// The request as first made, with imgview's own fields only.
    private let request: HTTPRequest
    /// The user's fields, put on each hop as `RedirectPolicy` says.
    private let headers: RequestHeaders
    private let sink: any TransferSink
    private let idleTimeout: TimeInterval

    /// The caller waiting for the outcome, and the outcome if it came first.
    private struct Completion {
        var continuation: CheckedContinuation<ResponseHead, any Error>?
        var outcome: Result<ResponseHead, any Error>?
        var isResumed = false
    }
    private let completion = Locked(Completion())

    // The driver thread's own state.
    /// The easy handle while the transfer runs.
    private(set) var handle: UnsafeMutableRawPointer?
    private var requestHeaders: UnsafeMutablePointer<curl_slist>?
    /// The URL of the hop under way.
    private var url: URL?
    /// Redirects followed so far.
    private var redirects = 0
    /// Whether the headers just ended were a redirect's: its body is dropped, and the driver then
    /// asks for the next hop.
    private var isRedirect = false
    private var droppedRedirectBytes = 0
    private var headerLines: [(name: String, value: String)] = []
    private var head: ResponseHead?
    private var sinkError: (any Error)?
    /// Body bytes received, decoded.
    private var received: Int64 = 0
    private var lastActivity = DispatchTime.now()
    /// Whether a status line arrived: a failure after it is the server's answer, not the connection's.
    private var sawStatusLine = false
    /// Decodes a successful body sent in a content coding; made when its first bytes arrive.
    private var decoder: ContentDecoder?
    private var isDecoderChosen = false
    /// libcurl's words for a failure (CURLOPT_ERRORBUFFER); it writes there while the transfer runs.
    private let errorBuffer: UnsafeMutablePointer<CChar> = {
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        buffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        return buffer
    }()

    init(request: HTTPRequest, headers: RequestHeaders, sink: any TransferSink, idleTimeout: TimeInterval) {
        self.request = request
        self.headers = headers
        self.sink = sink
        self.idleTimeout = min(max(idleTimeout, 0.001), Self.longestIdleTimeout)
    }

    deinit {
        errorBuffer.deallocate()
        // Headers exist only once the driver, which opened libcurl, set the transfer up.
        if let requestHeaders { libcurl.pointee.curl_slist_free_all(requestHeaders) }
    }

    // MARK: The caller's side

    /// Where the outcome goes; resumed at once if the transfer already ended (cancelled early).
    func wait(with continuation: CheckedContinuation<ResponseHead, any Error>) {
        let ended = completion.withLock { completion -> Result<ResponseHead, any Error>? in
            completion.continuation = continuation
            guard let outcome = completion.outcome, !completion.isResumed else { return nil }
            completion.isResumed = true
            return outcome
        }
        if let ended { continuation.resume(with: ended) }
    }

    /// Reports the outcome once; later calls are ignored.
    func finish(_ outcome: Result<ResponseHead, any Error>) {
        let waiting = completion.withLock { completion -> CheckedContinuation<ResponseHead, any Error>? in
            guard completion.outcome == nil else { return nil }
            completion.outcome = outcome
            guard let continuation = completion.continuation else { return nil }
            completion.isResumed = true
            return continuation
        }
        waiting?.resume(with: outcome)
    }

    var hasEnded: Bool { completion.withLock { $0.outcome != nil } }

    // MARK: The driver thread's side

    /// Sets the request up on `easy`; returns why it cannot be sent, if it cannot.
    func attach(to easy: UnsafeMutableRawPointer) -> TransportError? {
        guard !hasEnded else { return .local("ended before it began") }
        guard let url = request.url, let scheme = url.scheme?.lowercased() else {
            return .unsupportedScheme("", redirected: false)
        }
        guard scheme == "http" || scheme == "https" else { return .unsupportedScheme(scheme, redirected: false) }
        handle = easy
        lastActivity = DispatchTime.now()
        setHop(headers.applied(to: request), on: easy)
        let context = Unmanaged.passUnretained(self).toOpaque()
        imgview_curl_set_long(libcurl, easy, CURLOPT_NOSIGNAL, 1)
        imgview_curl_set_string(libcurl, easy, CURLOPT_PROTOCOLS_STR, "http,https")
        // Compressed bodies are decoded here, not by libcurl, which takes a stream without its end
        // for a whole one (ContentDecoder); the sink gets the decoded bytes, as from URLSession.
        imgview_curl_set_long(libcurl, easy, CURLOPT_HTTP_CONTENT_DECODING, 0)
        imgview_curl_set_long(libcurl, easy, CURLOPT_CONNECTTIMEOUT_MS, max(1, Int(idleTimeout * 1000)))
        imgview_curl_set_long(libcurl, easy, CURLOPT_BUFFERSIZE, Self.receiveBufferSize)
        imgview_curl_set_pointer(libcurl, easy, CURLOPT_ERRORBUFFER, errorBuffer)
        if request.method == .head { imgview_curl_set_long(libcurl, easy, CURLOPT_NOBODY, 1) }
        imgview_curl_set_data_callback(libcurl, easy, CURLOPT_WRITEFUNCTION, curlBodyCallback)
        imgview_curl_set_pointer(libcurl, easy, CURLOPT_WRITEDATA, context)
        imgview_curl_set_data_callback(libcurl, easy, CURLOPT_HEADERFUNCTION, curlHeaderCallback)
        imgview_curl_set_pointer(libcurl, easy, CURLOPT_HEADERDATA, context)
        return nil
    }

    /// Points `easy` at `hop`'s URL with `hop`'s header fields (and the body codings it decodes).
    private func setHop(_ hop: HTTPRequest, on easy: UnsafeMutableRawPointer) {
        url = hop.url
        var fields: UnsafeMutablePointer<curl_slist>?
        for field in hop.headerFields {
            // HTTPFields has already made the value a legal one: no line breaks.
            fields = libcurl.pointee.curl_slist_append(fields, "\(field.name.rawName): \(field.value)")
        }
        if hop.headerFields[.acceptEncoding] == nil {
            fields = libcurl.pointee.curl_slist_append(fields, "Accept-Encoding: \(ContentDecoder.acceptEncoding)")
        }
        imgview_curl_set_string(libcurl, easy, CURLOPT_URL, hop.url?.absoluteString ?? "")
        imgview_curl_set_pointer(libcurl, easy, CURLOPT_HTTPHEADER, fields)
        // libcurl reads the list while it sends, so the last hop's goes only once this one's is set.
        if let requestHeaders { libcurl.pointee.curl_slist_free_all(requestHeaders) }
        requestHeaders = fields
    }

    /// Where a transfer libcurl says is done with `result` goes next: nil when it did not end in a
    /// redirect (its outcome is `outcome(of:)`), else the next hop's request or why there is none.
    func redirect(after result: CURLcode) -> Result<HTTPRequest, TransportError>? {
        guard isRedirect, sinkError == nil, let handle else { return nil }
        // libcurl resolves the Location once the response ended well (CURLINFO_REDIRECT_URL); a
        // long body cut short leaves it to Foundation's resolution.
        var resolved: UnsafeMutablePointer<CChar>?
        imgview_curl_get_string(libcurl, handle, CURLINFO_REDIRECT_URL, &resolved)
        guard let target = resolved.flatMap({ URL(string: String(cString: $0)) }) ?? redirectTarget() else {
            return .failure(.badResponse("malformed redirect"))
        }
        let scheme = target.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" else { return .failure(.unsupportedScheme(scheme, redirected: true)) }
        guard redirects < Self.maxRedirects else { return .failure(.tooManyRedirects(limit: Self.maxRedirects)) }
        return .success(RedirectPolicy.request(request, redirectedTo: target, adding: headers))
    }

    /// Sets the next hop up on the easy handle, which the driver has taken out of the multi handle.
    func follow(_ hop: HTTPRequest) {
        guard let handle else { return }
        redirects += 1
        isRedirect = false
        droppedRedirectBytes = 0
        headerLines = []
        sawStatusLine = false
        errorBuffer[0] = 0
        lastActivity = DispatchTime.now()
        setHop(hop, on: handle)
    }

    /// Forgets the easy handle, which the driver resets for another transfer.
    func detach() {
        handle = nil
    }

    /// Nanoseconds left before the transfer has been idle too long; 0 when it has.
    func idleNanosecondsLeft(at now: UInt64) -> UInt64 {
        let limit = UInt64(idleTimeout * 1e9)
        let idle = now &- lastActivity.uptimeNanoseconds
        return idle >= limit ? 0 : limit - idle
    }

    func idleTimeoutError() -> TransportError {
        .timedOut(seconds: idleTimeout, received: received)
    }

    /// The outcome of a transfer libcurl says is done with `result`.
    func outcome(of result: CURLcode) -> Result<ResponseHead, any Error> {
        if let sinkError { return .failure(sinkError) }
        guard result == CURLE_OK, let handle else { return .failure(transportError(for: result)) }
        do {
            var head = try deliverHead(handle)
            if let decoder {
                // The body is whole only if its coding ended too.
                do {
                    try decoder.finish()
                } catch {
                    return .failure(TransportError.badResponse(error.reason))
                }
                head.decodedLength = received
            }
            return .success(head)
        } catch {
            return .failure(error)
        }
    }

    /// The kind of failure behind a `CURLcode`, in `TransportError`'s terms.
    private func transportError(for code: CURLcode) -> TransportError {
        var osError = 0
        if let handle { imgview_curl_get_long(libcurl, handle, CURLINFO_OS_ERRNO, &osError) }
        let detail = String(cString: errorBuffer)
        let words = TerminalText.sanitized(
            detail.isEmpty
                ? libcurl.pointee.curl_easy_strerror(code).map { String(cString: $0) } ?? "libcurl error \(code.rawValue)" : detail)
        switch code {
        case CURLE_COULDNT_CONNECT:
            switch Int32(osError) {
            case ETIMEDOUT: return idleTimeoutError()
            case ENETUNREACH, ENETDOWN, EHOSTUNREACH: return .unreachable
            default: return .connectionRefused
            }
        case CURLE_COULDNT_RESOLVE_HOST: return .hostNotFound(url?.host ?? "")
        case CURLE_COULDNT_RESOLVE_PROXY: return .hostNotFound("proxy")
        case CURLE_OPERATION_TIMEDOUT: return idleTimeoutError()
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_HTTP2, CURLE_HTTP2_STREAM:
            return .connectionLost(received: received)
        case CURLE_UNSUPPORTED_PROTOCOL:
            // Only http and https are sent, redirects included (`redirect(after:)`): this is libcurl
            // refusing an answer with no status line ("HTTP/0.9"), not a scheme.
            return .badResponse("the answer does not start with an HTTP status line")
        case CURLE_OUT_OF_MEMORY where sawStatusLine && head == nil:
            // libcurl refuses a header line over 100 kB with this code.
            return .badResponse("a header line longer than 100 kB")
        case CURLE_RECV_ERROR where detail.hasPrefix("Too large response headers"):
            return .badResponse("headers larger than 300 kB")
        case CURLE_URL_MALFORMAT: return redirects > 0 ? .badResponse("malformed redirect") : .badResponse(words)
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE,
            CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_USE_SSL_FAILED, CURLE_SSL_SHUTDOWN_FAILED,
            CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS:
            return .tls(words)
        case CURLE_BAD_CONTENT_ENCODING, CURLE_WEIRD_SERVER_REPLY: return .badResponse(words)
        default: return .local(words)
        }
    }

    /// Where the last response's Location pointed, resolved as libcurl resolves it.
    private func redirectTarget() -> URL? {
        guard let location = headerLines.last(where: { $0.name.lowercased() == "location" })?.value else { return nil }
        return URL(string: location.trimmingSpaces(), relativeTo: effectiveURL())?.absoluteURL
    }

    private func effectiveURL() -> URL? {
        guard let handle else { return url }
        var effective: UnsafeMutablePointer<CChar>?
        imgview_curl_get_string(libcurl, handle, CURLINFO_EFFECTIVE_URL, &effective)
        return effective.flatMap { URL(string: String(cString: $0)) } ?? url
    }

    /// The final response's status and headers, given to the sink once.
    private func deliverHead(_ easy: UnsafeMutableRawPointer) throws -> ResponseHead {
        if let head { return head }
        var status = 0
        imgview_curl_get_long(libcurl, easy, CURLINFO_RESPONSE_CODE, &status)
        var head = ResponseHead(
            status: status, headerLines: headerLines, url: effectiveURL() ?? URL(fileURLWithPath: "/"), expectedLength: nil)
        // Read from the header lines, strictly: libcurl takes the last of two that differ, and
        // reads a body whose length overflows to the connection's end.
        head.expectedLength = try ResponseHead.contentLength(in: head.fields)
        self.head = head
        try sink.receive(head)
        return head
    }

    /// What the headers that just ended were: an interim 1xx's, a redirect's (a status followed,
    /// with a Location), or the final response's.
    private enum HeadKind { case interim, redirect, final }

    private func kindOfHead(_ easy: UnsafeMutableRawPointer) -> HeadKind {
        var status = 0
        imgview_curl_get_long(libcurl, easy, CURLINFO_RESPONSE_CODE, &status)
        if status < 200 { return .interim }
        let isFollowed = RedirectPolicy.redirectStatuses.contains(status)
        return isFollowed && headerLines.contains { $0.name.lowercased() == "location" } ? .redirect : .final
    }

    /// Body bytes from libcurl; returning less than it gave aborts the transfer.
    fileprivate func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        lastActivity = DispatchTime.now()
        guard sinkError == nil, let handle else { return 0 }
        if isRedirect {
            // Read to keep the connection for the next hop, but not without end.
            droppedRedirectBytes += bytes.count
            return droppedRedirectBytes > Self.redirectBodyLimit ? 0 : bytes.count
        }
        do {
            let head = try deliverHead(handle)
            if !isDecoderChosen {
                isDecoderChosen = true
                // Only a body worth keeping is decoded: an error page's is dropped anyway.
                if (200..<300).contains(head.status) {
                    do {
                        decoder = try ContentDecoder.forContentEncoding(head[.contentEncoding])
                    } catch {
                        throw TransportError.badResponse(error.reason)
                    }
                }
            }
            if let decoder {
                do {
                    try decoder.decode(bytes) { decoded in
                        try sink.receive(bytes: decoded)
                        received += Int64(decoded.count)
                    }
                } catch let error as ContentDecodingError {
                    throw TransportError.badResponse(error.reason)
                }
            } else {
                try sink.receive(bytes: bytes)
                received += Int64(bytes.count)
            }
            // A sink slow to take the bytes (a busy disk) is not the server going quiet.
            lastActivity = DispatchTime.now()
            return bytes.count
        } catch {
            sinkError = error
            return 0
        }
    }

    /// One header line of any response on the way (redirects and 1xx included): a status line starts
    /// afresh, and the blank line that ends the final response's headers hands them to the sink, so a
    /// body that then fails is known to be a body cut short.
    fileprivate func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Int {
        lastActivity = DispatchTime.now()
        guard sinkError == nil else { return 0 }
        let line = String(decoding: bytes, as: UTF8.self)
        let trimmed = line.trimmingWhitespace()
        if trimmed.isEmpty {
            guard let handle else { return bytes.count }
            switch kindOfHead(handle) {
            case .interim: return bytes.count
            case .redirect:
                isRedirect = true
                return bytes.count
            case .final: break
            }
            do {
                _ = try deliverHead(handle)
            } catch {
                sinkError = error
                return 0
            }
        } else if line.hasPrefix("HTTP/") {
            headerLines = []
            sawStatusLine = true
        } else if line.first == " " || line.first == "\t", !headerLines.isEmpty {
            // An obsolete folded line continues the previous header.
            headerLines[headerLines.count - 1].value += " " + trimmed
        } else if let colon = trimmed.firstIndex(of: ":") {
            let name = trimmed[..<colon].trimmingSpaces()
            let value = trimmed[trimmed.index(after: colon)...].trimmingSpaces()
            headerLines.append((name, value))
        }
        return bytes.count
    }
}

private let curlBodyCallback: imgview_curl_data_callback = { bytes, size, count, context in
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.receiveBody(UnsafeRawBufferPointer(start: bytes, count: size * count))
}

private let curlHeaderCallback: imgview_curl_data_callback = { bytes, size, count, context in
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: bytes, count: size * count))
}
