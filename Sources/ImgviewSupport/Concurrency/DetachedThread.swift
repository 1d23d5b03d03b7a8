#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Starts an operating-system thread of its own, for work that blocks (libcurl's poll, decoders).
///
/// What Foundation's `Thread` was used for, without Foundation: a detached pthread that runs
/// `body` once and ends; its name is what `top -H` and debuggers show (15 bytes at most on Linux).
public enum DetachedThread {
    /// Starts `body` on a new thread named `name`; returns at once.
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(ThreadStart(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { context in
                let start = Unmanaged<ThreadStart>.fromOpaque(context!).takeRetainedValue()
                #if os(Linux)
                    _ = setThreadName(pthread_self(), String(decoding: start.name.utf8.prefix(15), as: UTF8.self))
                #endif
                start.body()
                return nil
            }, box)
        precondition(status == 0, "pthread_create failed: \(status)")
        pthread_detach(thread)
    }
}

private final class ThreadStart {
    let name: String
    let body: @Sendable () -> Void

    init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }
}

#if os(Linux)
    /// glibc's `pthread_setname_np`, which its headers declare only under `_GNU_SOURCE`.
    @_silgen_name("pthread_setname_np")
    private func setThreadName(_ thread: pthread_t, _ name: UnsafePointer<CChar>) -> Int32
#endif
