/// The time animations play by: the system's monotonic clock in the app, one a test moves by hand.
///
/// A protocol of our own rather than `any Clock<Duration>`: an existential clock's instants cannot
/// be handed back to its `sleep(until:)`, and a frame schedule needs absolute deadlines so that it
/// never drifts.
public protocol PlaybackClock: Sendable {
    /// The time now, as a duration since the clock's own fixed origin.
    var now: Duration { get }
    /// Returns once `now` reaches `deadline` (at once if it has); throws `CancellationError` when
    /// the calling task is cancelled meanwhile.
    func sleep(until deadline: Duration) async throws
}

/// `ContinuousClock`, counted from when the value was made.
public struct SystemPlaybackClock: PlaybackClock {
    private let origin = ContinuousClock.now

    public init() {}

    public var now: Duration { origin.duration(to: .now) }

    public func sleep(until deadline: Duration) async throws {
        try await ContinuousClock().sleep(until: origin + deadline, tolerance: .milliseconds(1))
    }
}
