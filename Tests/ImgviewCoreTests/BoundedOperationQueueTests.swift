#if URLSession
    import Foundation
    import ImgviewTestSupport
    import Testing

    @testable import ImgviewSupport
    @testable import ImgviewURLSession

    @Suite("Bounded delegate queue")
    struct BoundedOperationQueueTests {
        final class Counts: Sendable {
            let added = Locked(0)
            let ran = Locked<[Int]>([])
        }

        /// Adds `count` operations from a thread of its own, as FoundationNetworking's libcurl thread does.
        func addFromThread(_ queue: BoundedOperationQueue, count: Int, into counts: Counts) {
            Thread {
                for index in 0..<count {
                    queue.addOperation { counts.ran.withLock { $0.append(index) } }
                    counts.added.withLock { $0 += 1 }
                }
            }.start()
        }

        @Test func theAdderWaitsAtHighWaterUntilTheQueueDrains() async throws {
            let queue = BoundedOperationQueue(highWater: 4, lowWater: 2, patience: 60)
            queue.maxConcurrentOperationCount = 1
            queue.isSuspended = true
            let counts = Counts()
            addFromThread(queue, count: 10, into: counts)
            // The fifth add waits inside the queue (not merely late): four went in, nothing has run.
            try await eventually { queue.waitingAdders == 1 }
            #expect(counts.added.withLock { $0 } == 4)
            #expect(counts.ran.withLock { $0 }.isEmpty)

            queue.isSuspended = false
            try await eventually { counts.ran.withLock { $0 }.count == 10 }
            #expect(counts.ran.withLock { $0 } == Array(0..<10))
        }

        @Test func aStuckQueueOnlySlowsTheAdderDown() async throws {
            let queue = BoundedOperationQueue(highWater: 1, lowWater: 0, patience: 0.01)
            queue.isSuspended = true
            let counts = Counts()
            addFromThread(queue, count: 5, into: counts)
            try await eventually { counts.added.withLock { $0 } == 5 }
            queue.isSuspended = false
            try await eventually { counts.ran.withLock { $0 }.count == 5 }
        }
    }
#endif
