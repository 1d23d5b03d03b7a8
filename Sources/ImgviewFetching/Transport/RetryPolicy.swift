import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// When to try a transient failure again: exponential backoff, honouring the server's Retry-After.
public struct RetryPolicy: Sendable {
    /// Attempts after the first; 0 never retries.
    public var maxRetries: Int
    public var baseDelay: Duration
    public var maxDelay: Duration
    /// A Retry-After longer than this is not waited for: the failure is reported instead.
    public var maxRetryAfter: Duration

    public init(
        maxRetries: Int = 3, baseDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(30),
        maxRetryAfter: Duration = .seconds(120)
    ) {
        self.maxRetries = maxRetries
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
    }

    /// How long to wait before retry number `retry` (from 0), or nil to give up.
    ///
    /// - Parameter retryAfter: the server's Retry-After header: seconds, or an HTTP date.
    public func delay(beforeRetry retry: Int, retryAfter: String?, now: Date) -> Duration? {
        guard retry < maxRetries else { return nil }
        if let retryAfter {
            let trimmed = retryAfter.trimmingSpaces()
            var wait: Duration?
            if let seconds = Int(trimmed) {
                wait = .seconds(max(0, seconds))
            } else if let date = HTTPDate.date(from: trimmed) {
                wait = .milliseconds(max(0, Int(date.timeIntervalSince(now) * 1000)))
            }
            if let wait {
                return wait <= maxRetryAfter ? wait : nil
            }
        }
        let exponential = baseDelay * (1 << min(retry, 20))
        // Jitter spreads out clients that failed together.
        let jittered = exponential * Double.random(in: 0.8...1.2)
        return min(jittered, maxDelay)
    }
}
