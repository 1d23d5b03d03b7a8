/// Puts images in an order: by what their sort keys say, ties and unknowns in the order they
/// were listed.
public struct ImageOrdering: Sendable, Equatable {
    public var order: ImageOrder
    public var isReversed: Bool

    public init(order: ImageOrder, isReversed: Bool = false) {
        self.order = order
        self.isReversed = isReversed
    }

    /// `images` in this order.
    ///
    /// - Parameters:
    ///   - arrival: each image's place in the listing (by URL text): the `name` order, and what
    ///     breaks ties in the others.
    ///   - keys: what was read from the files; an image without a key comes after those with one,
    ///     whichever the direction.
    ///   - shuffle: each image's random number, for `shuffle`.
    public func sorted(
        _ images: [AppImage], arrival: [String: Int], keys: [String: ImageSortKeys], shuffle: [String: UInt64] = [:]
    ) -> [AppImage] {
        // Each image's key looked up once, then a sort over plain numbers.
        let decorated = images.map { image -> (primary: Int64?, arrival: Int, image: AppImage) in
            let place = arrival[image.urlString] ?? .max
            switch order {
            case .name: return (nil, place, image)
            case .date: return (keys[image.urlString]?.taken, place, image)
            case .mtime: return (keys[image.urlString]?.modified, place, image)
            case .size: return (keys[image.urlString]?.byteCount, place, image)
            case .shuffle: return (shuffle[image.urlString].map { Int64(bitPattern: $0) }, place, image)
            }
        }
        let descending = isReversed && order != .shuffle
        return decorated.sorted { a, b in
            switch (a.primary, b.primary) {
            case (let x?, let y?) where x != y: return descending ? x > y : x < y
            case (.some, nil): return true
            case (nil, .some): return false
            default: return order == .name && descending ? a.arrival > b.arrival : a.arrival < b.arrival
            }
        }.map(\.image)
    }
}
