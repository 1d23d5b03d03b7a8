import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The address ranges of the files mapped now (`MappedFile`), kept where the process's one
/// signal handler can read them: a file cut short while it is mapped makes a read past its new
/// end raise SIGBUS, which would end the process. The handler calls `recover(faultAddress:)`,
/// which puts zero pages in place of what the file no longer has, so the read goes on, and marks
/// the mapping as no longer the file's; whoever reads the mapping then reports the file as changed.
///
/// Lock-free and allocation-free on the handler's side: a fixed table of slots whose state,
/// start, end and loss are atomics.
public enum MappedRegions {
    /// How many mappings can be watched at once; one beyond that is still mapped, unwatched
    /// (a fault in it stays fatal).
    static let capacity = 64

    /// A slot of the table; its index in `table`.
    public struct Slot: Sendable, Equatable {
        let index: Int
    }

    /// Makes the table before any handler may need it: call where the handler is installed, so
    /// no global is first made inside a handler.
    public static func prepare() {
        _ = table
        _ = pageSize
    }

    /// Watches the `count` bytes mapped at `base`; nil when every slot is in use.
    static func watch(_ base: UnsafeRawPointer, count: Int) -> Slot? {
        for index in 0..<capacity {
            let field = table + index * Field.stride
            guard field[Field.state].compareExchange(expected: State.free, desired: State.changing, ordering: .acquiring).exchanged
            else { continue }
            field[Field.start].store(UInt(bitPattern: base), ordering: .relaxed)
            field[Field.end].store(UInt(bitPattern: base) + UInt(count), ordering: .relaxed)
            field[Field.lost].store(0, ordering: .relaxed)
            field[Field.state].store(State.watched, ordering: .releasing)
            return Slot(index: index)
        }
        return nil
    }

    /// Stops watching `slot`, before its mapping is unmapped.
    static func forget(_ slot: Slot) {
        let field = table + slot.index * Field.stride
        field[Field.state].store(State.changing, ordering: .relaxed)
        field[Field.start].store(0, ordering: .relaxed)
        field[Field.end].store(0, ordering: .relaxed)
        field[Field.state].store(State.free, ordering: .releasing)
    }

    /// Whether a read in `slot` met a page its file no longer had.
    static func lostBytes(_ slot: Slot) -> Bool {
        (table + slot.index * Field.stride)[Field.lost].load(ordering: .acquiring) != 0
    }

    /// For the SIGBUS handler: when `faultAddress` is in a watched mapping, maps zero pages over
    /// it from the faulting page to its end, marks the mapping, and returns true (the faulting
    /// read can run again); false for any other address. Async-signal-safe.
    public static func recover(faultAddress: UInt) -> Bool {
        for index in 0..<capacity {
            let field = table + index * Field.stride
            guard field[Field.state].load(ordering: .acquiring) == State.watched else { continue }
            let start = field[Field.start].load(ordering: .relaxed)
            let end = field[Field.end].load(ordering: .relaxed)
            guard faultAddress >= start, faultAddress < end else { continue }
            let page = faultAddress & ~(pageSize - 1)
            let length = (end - page + pageSize - 1) & ~(pageSize - 1)
            // Private, read-only and anonymous: what the decoder reads from here on is zeros.
            let replaced = mmap(
                UnsafeMutableRawPointer(bitPattern: page), Int(length), PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0)
            guard replaced != MAP_FAILED else { return false }
            field[Field.lost].store(1, ordering: .releasing)
            return true
        }
        return false
    }

    // MARK: The table

    private enum Field {
        static let state = 0
        static let start = 1
        static let end = 2
        static let lost = 3
        static let stride = 4
    }

    private enum State {
        static let free: UInt = 0
        static let changing: UInt = 1
        static let watched: UInt = 2
    }

    nonisolated(unsafe) private static let table: UnsafeMutablePointer<Atomic<UInt>> = {
        let count = capacity * Field.stride
        let slots = UnsafeMutablePointer<Atomic<UInt>>.allocate(capacity: count)
        for index in 0..<count { (slots + index).initialize(to: Atomic(0)) }
        return slots
    }()

    private static let pageSize = UInt(sysconf(Int32(_SC_PAGESIZE)))
}
