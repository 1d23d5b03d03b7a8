/// Finds a tab by part of its name, for `/`: the first match at or after a starting tab, going
/// round to the first tab after the last. Case is ignored.
public struct TabFinder: Sendable {
    public let query: String

    public init(query: String) {
        self.query = query.lowercased()
    }

    /// The index of the first name containing the query, looking from `start` forward (or back)
    /// and wrapping around; nil when none does. An empty query matches `start`.
    public func match<Names: RandomAccessCollection<String>>(in names: Names, from start: Int, forward: Bool = true) -> Int?
    where Names.Index == Int {
        let count = names.count
        guard count > 0 else { return nil }
        let first = min(max(0, start), count - 1)
        guard !query.isEmpty else { return first }
        for step in 0..<count {
            let index = forward ? (first + step) % count : (first - step + count) % count
            if matches(names[index]) { return index }
        }
        return nil
    }

    public func matches(_ name: String) -> Bool {
        name.lowercased().contains(query)
    }
}
