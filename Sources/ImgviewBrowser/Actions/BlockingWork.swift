import Dispatch

/// Work that blocks (file system calls, starting and waiting for programs), run where blocking
/// is harmless: on a queue of its own, never on the cooperative pool or Dispatch's global
/// queues, which the pool runs on (two threads on this machine).
enum BlockingWork {
    static func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue(label: "imgview.blocking-work", qos: .userInitiated).async { continuation.resume(returning: work()) }
        }
    }
}
