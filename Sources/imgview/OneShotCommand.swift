import ArgumentParser

/// A command that reads its images, says or writes what it has to, and ends (`info`, `show`): it
/// runs on the thread that parsed it (`CallingThreadExecutor`), with nothing on the main actor
/// and nothing that blocks waiting for another of its tasks.
protocol OneShotCommand: AsyncParsableCommand, Sendable {
    func run() async throws
}
