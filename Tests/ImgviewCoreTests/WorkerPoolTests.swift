import Dispatch
import Foundation
import Testing

@testable import ImgviewPipeline
@testable import ImgviewSupport

/// The pool's threads: work the user waits for may take every one, other work one fewer.
@Suite("Worker pool")
struct WorkerPoolTests {
    @Test func highPriorityWorkRunsBesideOtherWorkWhichLeavesAThreadFree() {
        let pool = WorkerPool(width: 2)
        let lowStarted = DispatchSemaphore(value: 0)
        let releaseLow = DispatchSemaphore(value: 0)
        let normalRan = DispatchSemaphore(value: 0)
        let highRan = DispatchSemaphore(value: 0)
        let normalHasRun = Locked(false)
        let normalRanBeforeHigh = Locked<Bool?>(nil)
        _ = pool.schedule(priority: .low) {
            lowStarted.signal()
            releaseLow.wait()
        }
        #expect(lowStarted.wait(timeout: .now() + 10) == .success)
        // The second thread may not take other work while the first runs some...
        _ = pool.schedule(priority: .normal) {
            normalHasRun.withLock { $0 = true }
            normalRan.signal()
        }
        // ...but takes what the user waits for.
        _ = pool.schedule(priority: .high) {
            normalRanBeforeHigh.withLock { $0 = normalHasRun.withLock { $0 } }
            highRan.signal()
        }
        #expect(highRan.wait(timeout: .now() + 10) == .success, "high-priority work waited for low-priority work")
        #expect(normalRanBeforeHigh.withLock { $0 } == false)
        releaseLow.signal()
        #expect(normalRan.wait(timeout: .now() + 10) == .success)
    }

    @Test func aPoolOfOneRunsEverythingOnIt() {
        #expect(WorkerPool.defaultWidth == max(1, ProcessInfo.processInfo.activeProcessorCount))
        let pool = WorkerPool(width: 1)
        let done = DispatchSemaphore(value: 0)
        for priority in WorkPriority.allCases { _ = pool.schedule(priority: priority) { done.signal() } }
        for _ in WorkPriority.allCases { #expect(done.wait(timeout: .now() + 10) == .success) }
    }
}
