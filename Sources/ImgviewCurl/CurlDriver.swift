internal import CCurl
import Dispatch
import HTTPTypes
import ImgviewFetching
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Runs every transfer of a loader on one libcurl multi handle, from one thread.
///
/// The multi handle keeps the connections (and resolved names) of finished transfers for the
/// next ones, so images from one server share a few keep-alive connections, and the thread sleeps
/// in `curl_multi_poll` until a socket has data, a transfer's idle time runs out, or another
/// thread hands it work or a cancellation and wakes it with `curl_multi_wakeup`. Everything
/// libcurl touches (the multi handle, the easy handles, their callbacks) is used on that thread
/// only; other threads reach it through `inbox`. Nothing is set up (not even libcurl itself)
/// until the first transfer, so a command that might fetch but does not pays nothing.
final class CurlDriver: @unchecked Sendable {
    /// What other threads ask of the driver thread.
    private struct Inbox {
        var starting: [CurlTransfer] = []
        var cancelling: [CurlTransfer] = []
        var isShuttingDown = false
        /// The multi handle, from the first transfer on; the thread that uses it cleans it up.
        var multi: UnsafeMutableRawPointer?
        /// Threads started so far: one at most, whatever the number of transfers.
        var threadsStarted = 0
    }

    private let inbox = Locked(Inbox())
    private let keptConnections: Int

    // The driver thread's own state.
    private var running: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    private var spareHandles: [UnsafeMutableRawPointer] = []

    /// The longest the thread sleeps with nothing to do; it wakes at once for new work anyway.
    private static let idlePollMilliseconds: Int32 = 60_000

    /// - Parameter keptConnections: idle connections the multi handle keeps open for later transfers.
    init(keptConnections: Int) {
        self.keptConnections = keptConnections
    }

    /// curl_global_init is not thread-safe: once per process, before the first handle.
    private static let initializeLibrary: Void = {
        _ = libcurl.pointee.curl_global_init(Int(CURL_GLOBAL_ALL))
    }()

    /// Hands `transfer` to the driver thread, opening libcurl, setting it up and starting the thread on first use.
    func start(_ transfer: CurlTransfer) {
        do {
            _ = try CurlLibrary.functions()
        } catch {
            transfer.finish(.failure(error))
            return
        }
        let (multi, isNew) = inbox.withLock { inbox -> (UnsafeMutableRawPointer?, Bool) in
            inbox.starting.append(transfer)
            if let multi = inbox.multi { return (multi, false) }
            CurlDriver.initializeLibrary
            inbox.multi = libcurl.pointee.curl_multi_init()
            if inbox.multi != nil { inbox.threadsStarted += 1 }
            return (inbox.multi, true)
        }
        guard let multi else {
            // Only when out of memory.
            transfer.finish(.failure(TransportError.local("libcurl could not create a multi handle")))
            return
        }
        if isNew {
            imgview_curl_multi_set_long(libcurl, multi, CURLMOPT_MAXCONNECTS, keptConnections)
            nonisolated(unsafe) let multi = multi
            DetachedThread.start(name: "imgview.curl") { [self] in run(on: multi) }
        } else {
            _ = libcurl.pointee.curl_multi_wakeup(multi)
        }
    }

    var threadsStarted: Int { inbox.withLock { $0.threadsStarted } }

    /// Stops `transfer` as soon as the driver thread wakes, which this makes it do at once.
    func cancel(_ transfer: CurlTransfer) {
        let multi = inbox.withLock { inbox in
            inbox.cancelling.append(transfer)
            return inbox.multi
        }
        if let multi {
            _ = libcurl.pointee.curl_multi_wakeup(multi)
        } else {
            // Never started: nothing runs that could take it.
            transfer.finish(.failure(CancellationError()))
        }
    }

    /// Cancels whatever still runs, and lets the thread end and free the multi handle.
    func shutDown() {
        let multi = inbox.withLock { inbox in
            inbox.isShuttingDown = true
            return inbox.multi
        }
        if let multi { _ = libcurl.pointee.curl_multi_wakeup(multi) }
    }

    // MARK: The driver thread

    private func run(on multi: UnsafeMutableRawPointer) {
        while true {
            let (starting, cancelling, isShuttingDown) = inbox.withLock { inbox in
                defer {
                    inbox.starting = []
                    inbox.cancelling = []
                }
                return (inbox.starting, inbox.cancelling, inbox.isShuttingDown)
            }
            for transfer in starting { begin(transfer, on: multi) }
            for transfer in cancelling { end(transfer, with: .failure(CancellationError()), on: multi) }
            if isShuttingDown {
                for transfer in running.values { end(transfer, with: .failure(CancellationError()), on: multi) }
                break
            }

            var stillRunning: Int32 = 0
            let performed = libcurl.pointee.curl_multi_perform(multi, &stillRunning)
            if performed != CURLM_OK {
                let failure = TransportError.local(
                    libcurl.pointee.curl_multi_strerror(performed).map { String(cString: $0) } ?? "libcurl error \(performed.rawValue)")
                for transfer in running.values { end(transfer, with: .failure(failure), on: multi) }
            }
            var easy: UnsafeMutableRawPointer?
            var result = CURLE_OK
            while imgview_curl_multi_next_done(libcurl, multi, &easy, &result) == 1 {
                guard let easy, let transfer = running[easy] else { continue }
                switch transfer.redirect(after: result) {
                case nil: end(transfer, with: transfer.outcome(of: result), on: multi)
                case .failure(let refusal): end(transfer, with: .failure(refusal), on: multi)
                case .success(let hop): follow(transfer, to: hop, on: multi)
                }
            }

            let now = DispatchTime.now().uptimeNanoseconds
            var wait = Self.idlePollMilliseconds
            for transfer in running.values {
                let left = transfer.idleNanosecondsLeft(at: now)
                if left == 0 {
                    end(transfer, with: .failure(transfer.idleTimeoutError()), on: multi)
                } else {
                    wait = min(wait, Int32(clamping: left / 1_000_000 + 1))
                }
            }
            _ = libcurl.pointee.curl_multi_poll(multi, nil, 0, wait, nil)
        }
        for handle in spareHandles { libcurl.pointee.curl_easy_cleanup(handle) }
        spareHandles = []
        _ = libcurl.pointee.curl_multi_cleanup(multi)
    }

    /// Sets `transfer` up on an easy handle and adds it to the multi handle, or ends it at once.
    private func begin(_ transfer: CurlTransfer, on multi: UnsafeMutableRawPointer) {
        guard let handle = spareHandles.popLast() ?? libcurl.pointee.curl_easy_init() else {
            transfer.finish(.failure(TransportError.local("libcurl could not create a handle")))
            return
        }
        if let failure = transfer.attach(to: handle) {
            detach(handle)
            transfer.finish(.failure(failure))
            return
        }
        running[handle] = transfer
        let added = libcurl.pointee.curl_multi_add_handle(multi, handle)
        guard added == CURLM_OK else { return abandon(transfer, handle, refused: added) }
    }

    /// Sends `transfer`'s easy handle, done with a redirect, on to `hop`: out of the multi handle
    /// and back in, which keeps the connections (one to the same host is used again).
    private func follow(_ transfer: CurlTransfer, to hop: HTTPRequest, on multi: UnsafeMutableRawPointer) {
        guard let handle = transfer.handle else { return }
        _ = libcurl.pointee.curl_multi_remove_handle(multi, handle)
        transfer.follow(hop)
        let added = libcurl.pointee.curl_multi_add_handle(multi, handle)
        guard added == CURLM_OK else { return abandon(transfer, handle, refused: added) }
    }

    /// Ends `transfer` whose handle the multi handle would not take, with libcurl's reason.
    private func abandon(_ transfer: CurlTransfer, _ handle: UnsafeMutableRawPointer, refused code: CURLMcode) {
        running[handle] = nil
        transfer.detach()
        detach(handle)
        let reason = libcurl.pointee.curl_multi_strerror(code).map { String(cString: $0) } ?? "libcurl error \(code.rawValue)"
        transfer.finish(.failure(TransportError.local(reason)))
    }

    /// Takes `transfer` out of the multi handle (closing its connection if it was mid-way) and
    /// tells its caller.
    private func end(_ transfer: CurlTransfer, with outcome: Result<ResponseHead, any Error>, on multi: UnsafeMutableRawPointer) {
        guard let handle = transfer.handle, running.removeValue(forKey: handle) != nil else {
            // Not running: cancelled before a turn began it (it ends now, and `begin` will find it
            // ended), or ended already (`finish` ignores a second outcome).
            transfer.finish(outcome)
            return
        }
        _ = libcurl.pointee.curl_multi_remove_handle(multi, handle)
        transfer.detach()
        detach(handle)
        transfer.finish(outcome)
    }

    /// Resets an easy handle and keeps it for the next transfer, or frees it.
    private func detach(_ handle: UnsafeMutableRawPointer) {
        libcurl.pointee.curl_easy_reset(handle)
        if spareHandles.count < keptConnections {
            spareHandles.append(handle)
        } else {
            libcurl.pointee.curl_easy_cleanup(handle)
        }
    }
}
