/// Progress of a transfer: bytes received, and the total when the server said.
public typealias TransferProgress = @Sendable (_ received: Int64, _ expected: Int64?) -> Void

/// Sees a body's bytes as they arrive: `offset` is where `bytes` start in the body (0 again when a
/// retry starts it over). Called on the transfer's thread; `bytes` are valid only during the call.
public typealias BodyTap = @Sendable (_ offset: Int64, _ bytes: UnsafeRawBufferPointer) -> Void
