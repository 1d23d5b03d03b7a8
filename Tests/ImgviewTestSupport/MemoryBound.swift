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
/// twice the bound is allowed there; the failures these bounds catch were four to twenty times it.
public func memoryBound(kilobytes: Int) -> Int {
    runsUnderSanitizer ? kilobytes * 2 : kilobytes
}
