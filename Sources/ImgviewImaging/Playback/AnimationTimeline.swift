/// When each frame of an animation is on screen: its frames' delays, played a number of times.
///
/// Pure arithmetic on time since the animation started, so `show` and the browser agree on which
/// frame shows when, and a late wake-up skips to the frame that should be showing instead of
/// drifting.
public struct AnimationTimeline: Sendable, Equatable {
    /// How long each frame shows, in order; never empty.
    public let delays: [Duration]
    /// How many passes to play; 0 means forever.
    public let loopCount: Int
    /// Where each frame starts within a pass, and (last) the pass's length, in nanoseconds.
    private let starts: [Int64]

    public init(delays: [Duration], loopCount: Int) {
        precondition(!delays.isEmpty, "a timeline has at least one frame")
        // A frame shorter than a millisecond would make the timeline spin; animations never ask for that.
        self.delays = delays.map { max($0, .milliseconds(1)) }
        self.loopCount = max(0, loopCount)
        var starts: [Int64] = [0]
        // Saturating: a frame's delay and the loop count are the file's to say.
        for delay in self.delays { starts.append(Self.saturating(starts[starts.count - 1].addingReportingOverflow(delay.nanoseconds))) }
        self.starts = starts
    }

    /// One pass through every frame.
    public var passDuration: Duration { .nanoseconds(starts[starts.count - 1]) }

    /// The whole animation, or nil when it plays forever.
    public var totalDuration: Duration? {
        // An APNG plays up to 2³² − 1 times: a pass of seconds played that often passes an Int64 of nanoseconds.
        loopCount == 0 ? nil : .nanoseconds(Self.saturating(starts[starts.count - 1].multipliedReportingOverflow(by: Int64(loopCount))))
    }

    /// Nanoseconds past what an Int64 holds (never negative here) as the most it holds.
    private static func saturating(_ result: (partialValue: Int64, overflow: Bool)) -> Int64 {
        result.overflow ? .max : result.partialValue
    }

    /// What is on screen `elapsed` after the start.
    public func position(at elapsed: Duration) -> Position {
        let pass = starts[starts.count - 1]
        let now = max(0, elapsed.nanoseconds)
        let passes = now / pass
        if loopCount > 0, passes >= Int64(loopCount) {
            return Position(frame: delays.count - 1, pass: loopCount - 1, nextChange: nil)
        }
        let offset = now - passes * pass
        // The last frame whose start is at or before the offset.
        var low = 0
        var high = delays.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        let ends = passes * pass + starts[low + 1]
        let isLast = loopCount > 0 && passes == Int64(loopCount) - 1 && low == delays.count - 1
        return Position(frame: low, pass: Int(passes), nextChange: isLast ? nil : .nanoseconds(ends))
    }

    /// A frame on screen, and when (time since the start) the next one replaces it; nil once the
    /// last frame of the last pass shows, which stays.
    public struct Position: Sendable, Equatable {
        public var frame: Int
        /// Which pass, from 0.
        public var pass: Int
        public var nextChange: Duration?

        public init(frame: Int, pass: Int, nextChange: Duration?) {
            self.frame = frame
            self.pass = pass
            self.nextChange = nextChange
        }
    }
}

extension Duration {
    /// The duration in whole nanoseconds (saturating), for timeline arithmetic.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        return scaled.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue
    }
}
