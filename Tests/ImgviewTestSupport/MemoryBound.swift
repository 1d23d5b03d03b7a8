#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Whether the tests and the binaries they run are built with a sanitizer: scripts/sanitize.sh
/// sets `ASAN_OPTIONS` or `TSAN_OPTIONS` for the whole run.
public var runsUnderSanitizer: Bool {
    let environment = ProcessInfo.processInfo.environment
    return environment["ASAN_OPTIONS"] != nil || environment["TSAN_OPTIONS"] != nil
}

/// The peak resident size a test allows a command that must stay under `kilobytes`.
///
/// Under a sanitizer, instrumented code, shadow memory and the allocator's quarantine add a share
/// of their own (AddressSanitizer: 100–115 MB for files that peak at 33–45 MB uninstrumented), so
/// twice the bound is allowed there; ThreadSanitizer's shadow is twice every byte the program
/// touches, plus its metadata (a 12 MP HEIC or JPEG XL at 85–95 MB uninstrumented peaks at 210–280
/// MB), so three times. The failures these bounds catch were four to twenty times the bound.
public func memoryBound(kilobytes: Int) -> Int {
    let environment = ProcessInfo.processInfo.environment
    if environment["TSAN_OPTIONS"] != nil { return kilobytes * 3 }
    return environment["ASAN_OPTIONS"] != nil ? kilobytes * 2 : kilobytes
}

/// The environment of a command whose peak resident size a test measures. Under AddressSanitizer
/// its quarantine is off there: it keeps freed blocks for up to 256 MB, so a library that frees
/// and allocates full-size buffers in turn (libheif) would be measured by the quarantine, not by
/// what it holds. The rest of the run keeps the quarantine for finding uses after free.
public var peakMeasurementEnvironment: [String: String] {
    guard let options = ProcessInfo.processInfo.environment["ASAN_OPTIONS"] else { return [:] }
    return ["ASAN_OPTIONS": options + ":quarantine_size_mb=0"]
}
