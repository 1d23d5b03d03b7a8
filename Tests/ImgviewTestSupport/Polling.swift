import Testing

/// Polls `condition` until it holds, recording an issue after `timeout`: for effects that land
/// on another task or in another process (a server's log, a file, a terminal's screen).
///
/// Effects inside the pipeline are awaited instead (a drained `ManualScheduler`, a held loader's
/// `waitForRequest`); this is for what no test double can report.
public func eventually(
    isolation: isolated (any Actor)? = #isolation, timeout: Duration = .seconds(30), _ condition: () -> Bool,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("condition not met within \(timeout)", sourceLocation: sourceLocation)
            return
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}
