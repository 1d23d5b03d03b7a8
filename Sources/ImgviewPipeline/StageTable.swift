import ImgviewFetching
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The works of one stage under way, by key: whoever asks for a key under way joins its work.
final class StageTable<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let works = Locked<[Key: SharedWork<Value>]>([:])

    /// Joins `id` to the work for `key`, making one when none is under way; `isNew` says the
    /// caller made it and must start it.
    /// A new work for a fetch gets the `partials` that follow its body.
    func join(
        _ key: Key, id: UniqueID, priority: WorkPriority, progress: TransferProgress? = nil, body: BodyTap? = nil,
        partials: () -> PartialPreviews? = { nil }
    ) -> (work: SharedWork<Value>, isNew: Bool) {
        works.withLock { works in
            if let work = works[key], work.join(id, priority: priority, progress: progress, body: body) { return (work, false) }
            let work = SharedWork<Value>(partials: partials()) { [weak self] done in self?.remove(key, done) }
            _ = work.join(id, priority: priority, progress: progress, body: body)
            works[key] = work
            return (work, true)
        }
    }

    /// Every work under way.
    var all: [SharedWork<Value>] {
        works.withLock { Array($0.values) }
    }

    private func remove(_ key: Key, _ work: SharedWork<Value>) {
        works.withLock { works in
            if works[key] === work { works[key] = nil }
        }
    }
}
