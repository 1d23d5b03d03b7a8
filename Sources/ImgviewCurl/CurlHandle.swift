import CCurl
import Foundation
import ImgviewCore

/// One libcurl easy handle inside a multi handle of its own.
///
/// The multi handle keeps the connections its transfers opened, so a handle taken from the
/// pool again reuses them (keep-alive), and `curl_multi_poll` lets another thread wake a
/// transfer at once to cancel it.
final class CurlHandle: @unchecked Sendable {
    let easy: UnsafeMutableRawPointer
    let multi: UnsafeMutableRawPointer

    init() {
        CurlHandle.initializeLibrary
        guard let easy = curl_easy_init(), let multi = curl_multi_init() else {
            // Only when out of memory; nothing sensible can follow.
            fatalError("libcurl could not create a handle")
        }
        self.easy = easy
        self.multi = multi
    }

    deinit {
        curl_easy_cleanup(easy)
        curl_multi_cleanup(multi)
    }

    /// curl_global_init is not thread-safe: once per process, before the first handle.
    private static let initializeLibrary: Void = {
        curl_global_init(Int(CURL_GLOBAL_ALL))
    }()
}

/// Handles kept between transfers, with their open connections.
final class CurlHandlePool: Sendable {
    private let idle = Locked<[CurlHandle]>([])
    private let capacity: Int

    /// - Parameter capacity: how many idle handles (and so connections per handle) to keep.
    init(capacity: Int) {
        self.capacity = capacity
    }

    func take() -> CurlHandle {
        idle.withLock { $0.popLast() } ?? CurlHandle()
    }

    /// Keeps `handle` for the next transfer, or lets it go (closing its connections) when the pool is full.
    func giveBack(_ handle: CurlHandle) {
        curl_easy_reset(handle.easy)
        idle.withLock { handles in
            if handles.count < capacity { handles.append(handle) }
        }
    }
}
