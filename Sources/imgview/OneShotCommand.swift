import ArgumentParser
import ImgviewSupport

/// A command that reads its images, says or writes what it has to, and ends (`info`, `show`): it
/// runs on the thread that parsed it (`CallingThreadExecutor`), with nothing on the main actor
/// and nothing that blocks waiting for another of its tasks.
protocol OneShotCommand: AsyncParsableCommand, Sendable {}

extension OneShotCommand {
    /// Runs `command`, parsed as this type, on the calling thread.
    static func runOnThisThread(_ command: any ParsableCommand) throws {
        let parsed = command as! Self
        try CallingThreadExecutor.run {
            var command = parsed
            try await command.run()
        }
    }
}
