import Foundation
import ImgviewServer
import ImgviewTestSupport
import Testing

@testable import ImgviewSupport

/// Bytes that sniff as a PNG, of any length, different per seed.
func fakePNG(size: Int, seed: UInt8 = 1) -> Data {
    var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    data.append(contentsOf: (0..<max(0, size - 8)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(seed)) })
    return data
}

/// Bytes that sniff as a PNG and barely compress (a linear congruential sequence's high bits).
func noisyPNG(size: Int) -> Data {
    var state: UInt32 = 12_345
    return fakePNG(size: 16)
        + Data(
            (0..<max(0, size - 16)).map { _ in
                state = state &* 1_664_525 &+ 1_013_904_223
                return UInt8(truncatingIfNeeded: state >> 24)
            })
}

/// A wall clock a test moves by hand, for freshness.
final class ManualDate: Sendable {
    private let current = Locked(Date(timeIntervalSince1970: 1_800_000_000))
    var now: Date { current.withLock { $0 } }
    func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// Runs blocking `work` on a thread of its own, off Swift's cooperative pool.
func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
