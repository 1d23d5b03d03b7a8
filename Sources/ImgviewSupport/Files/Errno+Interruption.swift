import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Errno {
    /// Runs `call`, a C call that fails by returning -1 and setting `errno`, again for as long as a
    /// signal interrupts it (`EINTR`), and throws any other failure: what swift-system's
    /// `FileDescriptor` methods do with `retryOnInterrupt`, for the calls it does not wrap
    /// (`waitpid`, `flock`, `poll`, `accept`, `copy_file_range`).
    ///
    /// `call` is made anew each time, so a timeout it works out from a deadline shrinks rather
    /// than starting over. Typed throws: a failure allocates nothing.
    package static func retryingOnInterrupt<Value: FixedWidthInteger>(_ call: () -> Value) throws(Errno) -> Value {
        while true {
            let value = call()
            guard value == -1 else { return value }
            let error = Errno(rawValue: errno)
            guard error == .interrupted else { throw error }
        }
    }

    /// Whether the call found nothing to do on a non-blocking descriptor (`EAGAIN`, `EWOULDBLOCK`).
    package var isWouldBlock: Bool {
        self == .resourceTemporarilyUnavailable || self == .wouldBlock
    }
}
