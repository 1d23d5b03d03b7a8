import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A least-recently-used cache in memory, bounded by total cost (bytes) and by entry count.
///
/// Safe to use from any thread; every operation is O(1).
public final class MemoryCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// Hits, misses and evictions since the cache was made.
    public struct Statistics: Sendable, Equatable {
        public var hits = 0
        public var misses = 0
        public var evictions = 0
        public var count = 0
        public var totalCost = 0
    }

    private final class Node {
        let key: Key
        var value: Value
        var cost: Int
        var newer: Node?
        weak var older: Node?

        init(key: Key, value: Value, cost: Int) {
            self.key = key
            self.value = value
            self.cost = cost
        }
    }

    private struct State {
        var nodes: [Key: Node] = [:]
        /// Most recently used.
        var newest: Node?
        /// Least recently used: evicted first.
        var oldest: Node?
        var statistics = Statistics()
    }

    public let costLimit: Int
    public let countLimit: Int
    private let state: Locked<State>

    public init(costLimit: Int, countLimit: Int) {
        self.costLimit = costLimit
        self.countLimit = countLimit
        self.state = Locked(State())
    }

    /// The value for `key`, marking it most recently used.
    public func value(for key: Key) -> Value? {
        state.withLock { state in
            guard let node = state.nodes[key] else {
                state.statistics.misses += 1
                return nil
            }
            state.statistics.hits += 1
            Self.unlink(node, in: &state)
            Self.pushNewest(node, in: &state)
            return node.value
        }
    }

    /// Stores `value`; a value costlier than the whole limit is not kept.
    public func set(_ value: Value, for key: Key, cost: Int) {
        state.withLock { state in
            if let existing = state.nodes.removeValue(forKey: key) {
                Self.unlink(existing, in: &state)
                state.statistics.totalCost -= existing.cost
            }
            guard cost <= costLimit else {
                state.statistics.count = state.nodes.count
                return
            }
            let node = Node(key: key, value: value, cost: cost)
            state.nodes[key] = node
            Self.pushNewest(node, in: &state)
            state.statistics.totalCost += cost
            while state.statistics.totalCost > costLimit || state.nodes.count > countLimit, let victim = state.oldest {
                Self.unlink(victim, in: &state)
                state.nodes[victim.key] = nil
                state.statistics.totalCost -= victim.cost
                state.statistics.evictions += 1
            }
            state.statistics.count = state.nodes.count
        }
    }

    public func removeValue(for key: Key) {
        state.withLock { state in
            guard let node = state.nodes.removeValue(forKey: key) else { return }
            Self.unlink(node, in: &state)
            state.statistics.totalCost -= node.cost
            state.statistics.count = state.nodes.count
        }
    }

    public func removeAll() {
        state.withLock { state in
            let statistics = state.statistics
            state = State()
            state.statistics = Statistics(hits: statistics.hits, misses: statistics.misses, evictions: statistics.evictions)
        }
    }

    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// Keys from most to least recently used.
    public var keys: [Key] {
        state.withLock { state in
            var keys: [Key] = []
            var node = state.newest
            while let current = node {
                keys.append(current.key)
                node = current.older
            }
            return keys
        }
    }

    private static func unlink(_ node: Node, in state: inout State) {
        if state.newest === node { state.newest = node.older }
        if state.oldest === node { state.oldest = node.newer }
        node.older?.newer = node.newer
        node.newer?.older = node.older
        node.newer = nil
        node.older = nil
    }

    private static func pushNewest(_ node: Node, in state: inout State) {
        node.older = state.newest
        state.newest?.newer = node
        state.newest = node
        if state.oldest == nil { state.oldest = node }
    }
}
