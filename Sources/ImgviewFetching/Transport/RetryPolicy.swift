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

    /// What a Retry-After header asks for.
    public enum AskedWait: Equatable, Sendable {
        /// No Retry-After, or one that is neither seconds nor a date: the backoff decides.
        case none
        /// Wait this long.
        case wait(Duration)
        /// Longer than `maxRetryAfter` (or past what a number holds): not waited for.
        case tooLong
    }

    /// What `retryAfter` (seconds, or an HTTP date) asks for, received at `now`.
    public func askedWait(_ retryAfter: String?, now: Date) -> AskedWait {
        guard let retryAfter else { return .none }
        let trimmed = retryAfter.trimmingSpaces()
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            // Digits past what an Int holds are a wait past any limit, not a missing header.
            guard let seconds = Int(trimmed), seconds <= Int(maxRetryAfter.components.seconds) else { return .tooLong }
            return .wait(.seconds(seconds))
        }
        guard let date = HTTPDate.date(from: trimmed) else { return .none }
        let wait = Duration.milliseconds(max(0, Int(date.timeIntervalSince(now) * 1000)))
        return wait <= maxRetryAfter ? .wait(wait) : .tooLong
    }

    /// How long to wait before retry number `retry` (from 0), or nil to give up.
    ///
    /// - Parameter retryAfter: the server's Retry-After header: seconds, or an HTTP date.
    public func delay(beforeRetry retry: Int, retryAfter: String?, now: Date) -> Duration? {
        guard retry < maxRetries else { return nil }
        switch askedWait(retryAfter, now: now) {
        case .wait(let wait): return wait
        case .tooLong: return nil
        case .none: break
        }
        let exponential = baseDelay * (1 << min(retry, 20))
        // Jitter spreads out clients that failed together.
        let jittered = exponential * Double.random(in: 0.8...1.2)
        return min(jittered, maxDelay)
    }
}
