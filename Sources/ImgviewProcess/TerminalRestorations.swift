import ImgviewSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What puts the terminal back as the shell expects it should the process end while it is
/// changed: bytes to write (the cursor shown, attributes reset, the alternate screen left) and tty
/// modes to set again.
public struct TerminalRestoration: @unchecked Sendable {
    public var bytes: [UInt8]
    /// Where `bytes` go.
    public var descriptor: Int32
    /// The modes to put back, and the terminal to put them on.
    public var modes: (descriptor: Int32, modes: termios)?

    public init(bytes: [UInt8] = [], to descriptor: Int32 = STDOUT_FILENO, modes: (descriptor: Int32, modes: termios)? = nil) {
        self.bytes = bytes
        self.descriptor = descriptor
        self.modes = modes
    }
}

extension ProcessSignals {
    /// Keeps `restoration` for every abrupt end (a second Ctrl-C, a crash, a command too slow to
    /// wind down, a broken pipe) until the returned handle is ended: for whatever changes the
    /// terminal for a while (the browser, a playing animation, the terminal query, a progress bar).
    public static func restoring(_ restoration: TerminalRestoration) -> RestorationHandle {
        install()
        return TerminalRestorations.add(restoration)
    }
}

/// A restoration kept by `ProcessSignals.restoring`; end it once the terminal is back.
public final class RestorationHandle: Sendable {
    private let id: Int

    init(id: Int) {
        self.id = id
    }

    /// Replaces what is restored (the browser learns its reset strings once ncurses has started).
    public func update(_ restoration: TerminalRestoration) {
        TerminalRestorations.replace(id, with: restoration)
    }

    public func end() {
        TerminalRestorations.remove(id)
    }
}

/// The restorations in force, published to the signal handler as an immutable snapshot in plain
/// memory: a new one replaces the old atomically, and old ones are kept, never freed, since a
/// handler may be reading one.
enum TerminalRestorations {
    struct Entry {
        var bytes: UnsafePointer<UInt8>?
        var byteCount: Int
        var descriptor: Int32
        var modes: UnsafePointer<termios>?
        var modesDescriptor: Int32
    }

    struct Snapshot {
        var entries: UnsafePointer<Entry>
        var count: Int
    }

    private struct State {
        var next = 0
        var entries: [(id: Int, restoration: TerminalRestoration)] = []
        /// Every snapshot ever published, so none is freed under a handler.
        var published: [UnsafeMutableRawPointer] = []
    }

    private static let state = Locked(State())

    /// The address of the snapshot the handler reads; 0 before the first.
    static let current = Atomic<Int>(0)

    static func add(_ restoration: TerminalRestoration) -> RestorationHandle {
        let id = state.withLock { state in
            defer { state.next += 1 }
            state.entries.append((state.next, restoration))
            publish(&state)
            return state.next
        }
        return RestorationHandle(id: id)
    }

    static func replace(_ id: Int, with restoration: TerminalRestoration) {
        state.withLock { state in
            guard let index = state.entries.firstIndex(where: { $0.id == id }) else { return }
            state.entries[index].restoration = restoration
            publish(&state)
        }
    }

    static func remove(_ id: Int) {
        state.withLock { state in
            guard state.entries.contains(where: { $0.id == id }) else { return }
            state.entries.removeAll { $0.id == id }
            publish(&state)
        }
    }

    private static func publish(_ state: inout State) {
        let entries = UnsafeMutablePointer<Entry>.allocate(capacity: max(1, state.entries.count))
        for (index, item) in state.entries.enumerated() {
            let restoration = item.restoration
            var bytes: UnsafePointer<UInt8>?
            if !restoration.bytes.isEmpty {
                let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: restoration.bytes.count)
                copy.initialize(from: restoration.bytes, count: restoration.bytes.count)
                bytes = UnsafePointer(copy)
            }
            var modes: UnsafePointer<termios>?
            if let saved = restoration.modes {
                let copy = UnsafeMutablePointer<termios>.allocate(capacity: 1)
                copy.initialize(to: saved.modes)
                modes = UnsafePointer(copy)
            }
            (entries + index).initialize(
                to: Entry(
                    bytes: bytes, byteCount: restoration.bytes.count, descriptor: restoration.descriptor, modes: modes,
                    modesDescriptor: restoration.modes?.descriptor ?? -1))
        }
        let snapshot = UnsafeMutablePointer<Snapshot>.allocate(capacity: 1)
        snapshot.initialize(to: Snapshot(entries: UnsafePointer(entries), count: state.entries.count))
        let raw = UnsafeMutableRawPointer(snapshot)
        state.published.append(raw)
        current.store(Int(bitPattern: raw), ordering: .releasing)
    }
}
