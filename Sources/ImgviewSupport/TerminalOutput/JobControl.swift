/// Job control as a program drawing on a terminal meets it: the user stops the process (Ctrl-Z)
/// and continues it (`fg`), and while it is stopped the terminal is the shell's and must look as
/// the shell expects (the cursor shown, no attributes left on).
///
/// The layers that draw see only this protocol; the process module implements it with the
/// signals (`ProcessSignals`), tests with a double they trigger by hand.
public protocol JobControl: Sendable {
    /// Runs `body`; should the process be stopped meanwhile, `suspending` runs just before it
    /// stops and `resumed` once it continues, each on a thread of the implementation's own and
    /// never both at once.
    func observingSuspension<Result: Sendable>(
        suspending: @escaping @Sendable () -> Void, resumed: @escaping @Sendable () -> Void,
        _ body: () async throws -> Result
    ) async throws -> Result
}
