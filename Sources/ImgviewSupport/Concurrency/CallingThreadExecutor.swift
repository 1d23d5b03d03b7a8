/// Runs a one-shot command's tasks on the thread that started it, so that `info` or `show` of one
/// file is one thread from start to end instead of a hop into Swift's global pool for each await.
///
/// The command's task prefers this executor; its child tasks, the default actors it calls and the
/// unstructured tasks started with `PreferredExecutor.current` follow it there. Work that must
/// run beside it (the worker pool's decodes, a transfer's own thread, the signal relay) keeps its
/// threads and resumes the command here. Nothing run here may block waiting for another task of
/// the command: there is no second thread to run it (DECISIONS.md, "One-shot commands run on one
/// thread").
public final class CallingThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = ThreadCondition()
    // Guarded by `condition`.
    private var jobs: [UnownedJob] = []
    private var isFinished = false

    private init() {}

    /// Runs `operation` as a task on the calling thread and returns what it returns; the thread
    /// runs nothing else meanwhile.
    public static func run<Result: Sendable>(
        _ operation: sending @escaping () async throws -> Result
    ) throws -> Result {
        let executor = CallingThreadExecutor()
        let outcome = Locked<Swift.Result<Result, any Error>?>(nil)
        Task(executorPreference: executor) {
            let result: Swift.Result<Result, any Error>
            do {
                result = .success(try await PreferredExecutor.$current.withValue(executor) { try await operation() })
            } catch {
                result = .failure(error)
            }
            outcome.withLock { $0 = result }
            executor.finish()
        }
        executor.runUntilFinished()
        // `finish` follows the store, under the executor's lock.
        return try outcome.withLock { $0! }.get()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func finish() {
        condition.lock()
        isFinished = true
        condition.signal()
        condition.unlock()
    }

    private func runUntilFinished() {
        while let batch = nextJobs() {
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }

    /// The jobs queued since the last batch, waiting for one; nil once the command has finished.
    private func nextJobs() -> [UnownedJob]? {
        condition.lock()
        defer { condition.unlock() }
        while jobs.isEmpty && !isFinished { condition.wait() }
        if isFinished { return nil }
        defer { jobs.removeAll(keepingCapacity: true) }
        return jobs
    }
}
