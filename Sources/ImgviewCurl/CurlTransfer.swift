import CCurl
import Foundation
import ImgviewCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One request run to its end on the calling thread, its body streamed into a sink.
///
/// libcurl calls back on the thread that runs the transfer, so everything but the cancel flag
/// is touched by that thread only. The head reaches the sink with the first body bytes (or at
/// the end when there is no body): by then libcurl has followed every redirect, so it is the
/// final response's.
final class CurlTransfer: @unchecked Sendable {
    /// libcurl's receive buffer: larger than its 16 KB default, fewer reads of the socket.
    static let receiveBufferSize = 256 << 10
    static let maxRedirects = 10

    private let request: URLRequest
    private let sink: any TransferSink
    private let idleTimeout: TimeInterval

    // The transfer thread's own state.
    private var headers: [String: String] = [:]
    private var lastHeaderName: String?
    private var head: ResponseHead?
    private var sinkError: (any Error)?
    private var lastActivity = DispatchTime.now()
    /// The easy handle while `run` uses it, for the callbacks to read the response's status.
    private var easy: UnsafeMutableRawPointer?
    /// libcurl's words for a failure (CURLOPT_ERRORBUFFER); it writes there while `run` runs.
    private let errorBuffer: UnsafeMutablePointer<CChar> = {
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        buffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        return buffer
    }()

    /// Set by `cancel()` from any thread; the multi handle is there while the transfer runs, to wake it.
    private struct Control {
        var isCancelled = false
        var runningOn: UnsafeMutableRawPointer?
    }
    private let control = Locked(Control())

    /// The longest idle timeout honoured (a year): `--connect-timeout inf` means "never", not a crash.
    static let longestIdleTimeout: TimeInterval = 365 * 24 * 3600

    init(request: URLRequest, sink: any TransferSink, idleTimeout: TimeInterval) {
        self.request = request
        self.sink = sink
        self.idleTimeout = min(max(idleTimeout, 0.001), Self.longestIdleTimeout)
    }

    deinit {
        errorBuffer.deallocate()
    }

    /// Stops the transfer as soon as its thread wakes, which this makes it do at once.
    func cancel() {
        control.withLock { control in
            control.isCancelled = true
            if let multi = control.runningOn { curl_multi_wakeup(multi) }
        }
    }

    private var isCancelled: Bool { control.withLock { $0.isCancelled } }

    /// Runs the request on `handle`; returns the final response's head once the whole body went into the sink.
    func run(on handle: CurlHandle) -> Result<ResponseHead, any Error> {
        guard let url = request.url, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return .failure(URLError(.unsupportedURL))
        }
        let headerList = requestHeaders()
        defer { curl_slist_free_all(headerList) }
        easy = handle.easy
        defer { easy = nil }
        configure(handle.easy, url: url, headers: headerList)
        imgview_curl_set_pointer(handle.easy, CURLOPT_ERRORBUFFER, errorBuffer)
        defer { imgview_curl_set_pointer(handle.easy, CURLOPT_ERRORBUFFER, nil) }

        let proceed = control.withLock { control -> Bool in
            guard !control.isCancelled else { return false }
            control.runningOn = handle.multi
            return true
        }
        guard proceed else { return .failure(CancellationError()) }
        curl_multi_add_handle(handle.multi, handle.easy)
        let outcome = perform(on: handle)
        control.withLock { $0.runningOn = nil }
        curl_multi_remove_handle(handle.multi, handle.easy)
        return outcome
    }

    /// Drives libcurl until the transfer is done, cancelled or idle for too long.
    private func perform(on handle: CurlHandle) -> Result<ResponseHead, any Error> {
        let idleNanoseconds = UInt64(idleTimeout * 1e9)
        var running: Int32 = 1
        var result = CURLE_OK
        while true {
            let status = curl_multi_perform(handle.multi, &running)
            guard status == CURLM_OK else { return .failure(URLError(curlMulti: status)) }
            if imgview_curl_multi_next_done(handle.multi, &result) == 1 { break }
            if isCancelled { return .failure(CancellationError()) }
            let idle = DispatchTime.now().uptimeNanoseconds &- lastActivity.uptimeNanoseconds
            if idle >= idleNanoseconds { return .failure(URLError(.timedOut)) }
            // Sleeps until the socket has data, libcurl's own timer is due, or cancel() wakes it.
            let wait = min((idleNanoseconds - idle) / 1_000_000 + 1, 1000)
            let polled = curl_multi_poll(handle.multi, nil, 0, Int32(wait), nil)
            guard polled == CURLM_OK else { return .failure(URLError(curlMulti: polled)) }
        }
        if let sinkError { return .failure(sinkError) }
        if isCancelled { return .failure(CancellationError()) }
        guard result == CURLE_OK else {
            var osError = 0
            imgview_curl_get_long(handle.easy, CURLINFO_OS_ERRNO, &osError)
            let detail = String(cString: errorBuffer)
            return .failure(URLError(curl: result, osError: Int32(osError), detail: detail))
        }
        do {
            return .success(try deliverHead(handle.easy))
        } catch {
            return .failure(error)
        }
    }

    private func configure(_ easy: UnsafeMutableRawPointer, url: URL, headers: UnsafeMutablePointer<curl_slist>?) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        imgview_curl_set_string(easy, CURLOPT_URL, url.absoluteString)
        imgview_curl_set_long(easy, CURLOPT_NOSIGNAL, 1)
        imgview_curl_set_string(easy, CURLOPT_PROTOCOLS_STR, "http,https")
        imgview_curl_set_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        imgview_curl_set_long(easy, CURLOPT_FOLLOWLOCATION, 1)
        imgview_curl_set_long(easy, CURLOPT_MAXREDIRS, Self.maxRedirects)
        // Every encoding libcurl can decode is offered, and the sink gets the decoded bytes, as from URLSession.
        imgview_curl_set_string(easy, CURLOPT_ACCEPT_ENCODING, "")
        imgview_curl_set_long(easy, CURLOPT_CONNECTTIMEOUT_MS, max(1, Int(idleTimeout * 1000)))
        imgview_curl_set_long(easy, CURLOPT_BUFFERSIZE, Self.receiveBufferSize)
        imgview_curl_set_pointer(easy, CURLOPT_HTTPHEADER, headers)
        if request.httpMethod?.uppercased() == "HEAD" { imgview_curl_set_long(easy, CURLOPT_NOBODY, 1) }
        imgview_curl_set_data_callback(easy, CURLOPT_WRITEFUNCTION, curlBodyCallback)
        imgview_curl_set_pointer(easy, CURLOPT_WRITEDATA, context)
        imgview_curl_set_data_callback(easy, CURLOPT_HEADERFUNCTION, curlHeaderCallback)
        imgview_curl_set_pointer(easy, CURLOPT_HEADERDATA, context)
    }

    private func requestHeaders() -> UnsafeMutablePointer<curl_slist>? {
        var list: UnsafeMutablePointer<curl_slist>?
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            // A header value cannot carry a line break; libcurl would send it as is.
            let clean = value.filter { $0 != "\r" && $0 != "\n" }
            list = curl_slist_append(list, "\(name): \(clean)")
        }
        return list
    }

    /// The final response's status and headers, given to the sink once.
    private func deliverHead(_ easy: UnsafeMutableRawPointer) throws -> ResponseHead {
        if let head { return head }
        var status = 0
        imgview_curl_get_long(easy, CURLINFO_RESPONSE_CODE, &status)
        var length: curl_off_t = -1
        imgview_curl_get_off_t(easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length)
        var effective: UnsafeMutablePointer<CChar>?
        imgview_curl_get_string(easy, CURLINFO_EFFECTIVE_URL, &effective)
        let finalURL = effective.flatMap { URL(string: String(cString: $0)) } ?? request.url!
        let head = ResponseHead(status: status, headers: headers, url: finalURL, expectedLength: length >= 0 ? Int64(length) : nil)
        self.head = head
        try sink.receive(head)
        return head
    }

    /// Whether the headers just ended are the last libcurl will read: not an interim 1xx, and not a
    /// redirect it is about to follow (the statuses libcurl follows, with a Location; past the
    /// redirect limit it fails instead).
    private func isFinalResponse(_ easy: UnsafeMutableRawPointer) -> Bool {
        var status = 0
        imgview_curl_get_long(easy, CURLINFO_RESPONSE_CODE, &status)
        if status < 200 { return false }
        return !([300, 301, 302, 303, 307, 308].contains(status) && headers["location"] != nil)
    }

    /// Body bytes from libcurl; returning less than it gave aborts the transfer.
    fileprivate func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        lastActivity = DispatchTime.now()
        guard sinkError == nil, !isCancelled, let easy else { return 0 }
        do {
            _ = try deliverHead(easy)
            try sink.receive(bytes: bytes)
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
        guard !isCancelled else { return 0 }
        let line = String(decoding: bytes, as: UTF8.self)
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty {
            guard let easy, isFinalResponse(easy) else { return bytes.count }
            do {
                _ = try deliverHead(easy)
            } catch {
                sinkError = error
                return 0
            }
        } else if line.hasPrefix("HTTP/") {
            headers = [:]
            lastHeaderName = nil
        } else if line.first == " " || line.first == "\t", let name = lastHeaderName {
            // An obsolete folded line continues the previous header.
            headers[name, default: ""] += " " + trimmed
        } else if let colon = trimmed.firstIndex(of: ":") {
            let name = trimmed[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = trimmed[trimmed.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            // Repeated headers are joined as one list, as URLSession's allHeaderFields does.
            if let earlier = headers[name] { headers[name] = earlier + ", " + value } else { headers[name] = value }
            lastHeaderName = name
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
