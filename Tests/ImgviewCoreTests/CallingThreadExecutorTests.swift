import ImgviewSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A one-shot command's work stays on the thread that runs it: what it awaits, the actors it
/// calls, its child tasks and the tasks it starts through `PreferredExecutor`.
@Suite("Calling-thread executor")
struct CallingThreadExecutorTests {
    actor Counter {
        private var count = 0

        func increment() -> (count: Int, thread: pthread_t) {
            count += 1
            return (count, pthread_self())
        }
    }

    static func thread() async -> pthread_t {
        await Task.yield()
        return pthread_self()
    }

    @Test func everyKindOfAwaitRunsOnTheCallingThread() throws {
        let caller = pthread_self()
        let threads = try CallingThreadExecutor.run { () async throws -> [String: pthread_t] in
            var seen: [String: pthread_t] = ["start": pthread_self()]
            let counter = Counter()
            seen["actor"] = await counter.increment().thread
            seen["nonisolated"] = await Self.thread()
            async let child = Self.thread()
            seen["async let"] = await child
            seen["group"] = await withTaskGroup(of: pthread_t.self) { group in
                group.addTask { await Self.thread() }
                return await group.next()!
            }
            seen["unstructured"] = await Task(executorPreference: PreferredExecutor.current) { await Self.thread() }.value
            try await Task.sleep(for: .milliseconds(1))
            seen["after a sleep"] = pthread_self()
            return seen
        }
        #expect(threads.count == 7)
        for (label, thread) in threads { #expect(pthread_equal(thread, caller) != 0, "\(label)") }
    }

    @Test func workOnAnotherThreadResumesTheCommandHere() throws {
        let caller = pthread_self()
        let (other, resumed) = try CallingThreadExecutor.run { () async -> (pthread_t, pthread_t) in
            let other = await withCheckedContinuation { (continuation: CheckedContinuation<pthread_t, Never>) in
                DetachedThread.start(name: "test-other") { continuation.resume(returning: pthread_self()) }
            }
            return (other, pthread_self())
        }
        #expect(pthread_equal(other, caller) == 0)
        #expect(pthread_equal(resumed, caller) != 0)
    }

    struct Refusal: Error, Equatable {}

    @Test func anErrorComesBackToTheCaller() {
        #expect(throws: Refusal()) {
            try CallingThreadExecutor.run { () async throws -> Int in
                await Task.yield()
                throw Refusal()
            }
        }
    }

    @Test func withoutACommandThereIsNoPreference() async {
        #expect(PreferredExecutor.current == nil)
    }
}
