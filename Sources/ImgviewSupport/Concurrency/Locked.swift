/// A value shared between threads, reached only while holding its lock.
///
/// Used instead of the standard library's `Mutex`: on Linux that one waits with futex system
/// calls that ThreadSanitizer cannot see, so every access it protects was reported as a race
/// (`scripts/sanitize.sh thread`). `ThreadLock` is a pthread mutex, which the sanitizer understands.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = ThreadLock()
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
