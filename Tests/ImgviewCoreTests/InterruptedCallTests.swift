import Dispatch
import Synchronization
import SystemPackage
import Testing

@testable import ImgviewSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `Errno.retryingOnInterrupt`, the one EINTR loop for the calls swift-system does not wrap.
@Suite("A call a signal interrupts is made again")
struct InterruptedCallTests {
    @Test func aReadInterruptedBySignalIsMadeAgainAndReturnsTheData() throws {
        // Without SA_RESTART the kernel does not restart the read itself: it fails with EINTR.
        var action = sigaction()
        action.__sigaction_handler.sa_handler = countInterruption
        action.sa_flags = 0
        sigemptyset(&action.sa_mask)
        var previous = sigaction()
        try #require(sigaction(SIGURG, &action, &previous) == 0)
        defer { sigaction(SIGURG, &previous, nil) }
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        let readEnd = FileDescriptor(rawValue: ends[0])
        let writeEnd = FileDescriptor(rawValue: ends[1])
        defer {
            try? readEnd.close()
            try? writeEnd.close()
        }
        let interruptionsBefore = interruptions.load(ordering: .acquiring)

        let reader = BlockedReader()
        DetachedThread.start(name: "eintr-test") { reader.read(readEnd) }
        try #require(reader.firstTry.wait(timeout: .now() + 10) == .success)
        // A signal that lands before the read blocks only runs the handler, and the read goes on
        // waiting; so it is sent again until the read is made a second time.
        var madeAgain = false
        for _ in 0..<500 where !madeAgain {
            pthread_kill(reader.thread.withLock { $0 }, SIGURG)
            madeAgain = reader.secondTry.wait(timeout: .now() + .milliseconds(20)) == .success
        }
        try writeEnd.writeAll(Array("after the signal".utf8))
        try #require(reader.finished.wait(timeout: .now() + 10) == .success)

        #expect(madeAgain, "the interrupted read was not made again")
        let (result, tries) = reader.outcome.withLock { $0 }
        #expect(result == "after the signal")
        #expect(tries >= 2)
        #expect(interruptions.load(ordering: .acquiring) > interruptionsBefore)
    }

    @Test func anotherFailureIsThrownAtOnceAndASuccessReturned() {
        var tries = 0
        #expect(throws: Errno.badFileDescriptor) {
            try Errno.retryingOnInterrupt {
                tries += 1
                return close(-1)
            }
        }
        #expect(tries == 1)
        #expect((try? Errno.retryingOnInterrupt { getpid() }) == getpid())
        #expect(Errno.resourceTemporarilyUnavailable.isWouldBlock && Errno.wouldBlock.isWouldBlock)
        #expect(!Errno.interrupted.isWouldBlock)
    }
}

/// A thread that reads a pipe through `retryingOnInterrupt`, saying when it begins each try.
private final class BlockedReader: Sendable {
    let thread = Locked(pthread_t())
    let firstTry = DispatchSemaphore(value: 0)
    let secondTry = DispatchSemaphore(value: 0)
    let finished = DispatchSemaphore(value: 0)
    let outcome = Locked<(text: String?, tries: Int)>((nil, 0))

    func read(_ descriptor: FileDescriptor) {
        // Started from a Dispatch worker, which blocks signals; this thread takes SIGURG.
        var urgent = sigset_t()
        sigemptyset(&urgent)
        sigaddset(&urgent, SIGURG)
        pthread_sigmask(SIG_UNBLOCK, &urgent, nil)
        thread.withLock { $0 = pthread_self() }
        var buffer = [UInt8](repeating: 0, count: 64)
        var tries = 0
        let count = try? buffer.withUnsafeMutableBytes { bytes in
            try Errno.retryingOnInterrupt {
                tries += 1
                if tries == 1 { firstTry.signal() }
                if tries == 2 { secondTry.signal() }
                return Glibc.read(descriptor.rawValue, bytes.baseAddress, bytes.count)
            }
        }
        let text = count.map { String(decoding: buffer[..<$0], as: UTF8.self) }
        outcome.withLock { $0 = (text, tries) }
        finished.signal()
    }
}

private let interruptions = Atomic<Int>(0)

private func countInterruption(_: Int32) {
    interruptions.add(1, ordering: .relaxed)
}
