/// The task executor the current command's work prefers (`CallingThreadExecutor` for a one-shot
/// command; nil, Swift's global pool, otherwise).
///
/// Child tasks inherit a task's executor preference, but unstructured tasks do not; a task local
/// does reach them, so the pipeline starts its own tasks with `Task(executorPreference:
/// PreferredExecutor.current)` and they run where the command that asked for them runs.
public enum PreferredExecutor {
    @TaskLocal public static var current: (any TaskExecutor)?
}
