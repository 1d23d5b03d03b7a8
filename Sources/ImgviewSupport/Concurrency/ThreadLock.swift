#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A pthread mutex, for state shared between threads.
///
/// What `Locked` and the few classes that guard several fields hold. Not the standard library's
/// `Mutex`: on Linux that one waits with futex system calls that ThreadSanitizer cannot see
/// (DECISIONS.md, "Sanitizers"); a pthread mutex it understands. Foundation's `NSLock` is the
/// same mutex, but the rest of Foundation is not wanted (DECISIONS.md, "A light binary").
public final class ThreadLock: @unchecked Sendable {
    fileprivate let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    public init() {
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func lock() {
        pthread_mutex_lock(mutex)
    }

    public func unlock() {
        pthread_mutex_unlock(mutex)
    }

    /// Runs `body` holding the lock.
    public func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// A pthread condition variable with its own mutex, for a thread that waits for another's signal.
public final class ThreadCondition: @unchecked Sendable {
    private let lockHeld = ThreadLock()
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
    }

    public func lock() {
        lockHeld.lock()
    }

    public func unlock() {
        lockHeld.unlock()
    }

    /// Releases the lock until signalled (or woken spuriously: wait in a loop), then takes it again.
    public func wait() {
        pthread_cond_wait(condition, lockHeld.mutex)
    }

    public func signal() {
        pthread_cond_signal(condition)
    }

    public func broadcast() {
        pthread_cond_broadcast(condition)
    }
}
