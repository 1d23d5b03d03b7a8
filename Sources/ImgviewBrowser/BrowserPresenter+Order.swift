import ImgviewFetching

extension BrowserPresenter {
    /// The order the state asks for.
    var ordering: ImageOrdering {
        ImageOrdering(order: state.order, isReversed: state.isReversed)
    }

    /// Takes images that arrived (the first ones, a folder's next batch, a catalog's next page)
    /// into the list, each in its place in the order. When the order needs their files read, they
    /// wait for that off the main actor; the selection stays on the image it is on.
    func admit(_ batch: [AppImage], starting: Bool = false) {
        for image in batch where arrival[image.urlString] == nil {
            arrival[image.urlString] = arrival.count
            shuffleKeys[image.urlString] = configuration.random()
        }
        if state.order.needsKeys, batch.contains(where: { sortKeys[$0.urlString] == nil }) {
            waitingForKeys += batch
            if starting { startsAfterSorting = true }
            readSortKeys()
            return
        }
        place(batch)
    }

    /// Puts `batch` among the images in the state's order, keeping the selected image selected.
    private func place(_ batch: [AppImage]) {
        guard !batch.isEmpty else { return }
        if state.order == .name, !state.isReversed, waitingForKeys.isEmpty {
            update { $0.images += batch }
            return
        }
        reorder(state.images + batch)
    }

    /// Shows `images` in the state's order, the selected image still selected.
    func reorder(_ images: [AppImage]) {
        let selected = state.selectedImage?.urlString
        let before = state.selectedIndex
        let sorted = ordering.sorted(images, arrival: arrival, keys: sortKeys, shuffle: shuffleKeys)
        update {
            $0.images = sorted
            if let selected, let index = sorted.firstIndex(where: { $0.urlString == selected }) { $0.selectedIndex = index }
        }
        // The same image, at another place: what is near it now is what stays prefetched.
        if state.selectedIndex != before, state.selectedImage != nil { keepOnlyNeighbours(of: state.selectedIndex) }
    }

    /// Reads the sort keys of the images waiting for them (and, after a change of order, of every
    /// image still without), then puts them in their places; one reading at a time.
    func readSortKeys() {
        guard keyReading == nil else { return }
        var wanted = waitingForKeys
        if resortsAfterReading { wanted += state.images.filter { sortKeys[$0.urlString] == nil } }
        wanted.removeAll { sortKeys[$0.urlString] != nil }
        update { $0.isSorting = true }
        let reader = configuration.sortKeys
        keyReading = Task { [weak self] in
            let keys = wanted.isEmpty ? [:] : await reader.keys(for: wanted)
            guard let self, !Task.isCancelled else { return }
            self.sortKeys.merge(keys) { _, new in new }
            self.keyReading = nil
            self.keysArrived()
        }
    }

    private func keysArrived() {
        if state.order.needsKeys {
            let pending = waitingForKeys + (resortsAfterReading ? state.images : [])
            // Some arrived, or were asked for, while this reading went on: read those too first.
            if pending.contains(where: { sortKeys[$0.urlString] == nil }) {
                readSortKeys()
                return
            }
        }
        let waiting = waitingForKeys
        waitingForKeys = []
        if resortsAfterReading {
            resortsAfterReading = false
            reorder(state.images + waiting)
        } else {
            place(waiting)
        }
        update { $0.isSorting = false }
        if startsAfterSorting {
            startsAfterSorting = false
            select(0, policy: .useCache)
        }
    }

    /// The order key: name, date, mtime, size, and round again; the selection and the marks stay.
    func cycleOrder() {
        let order = state.order.next
        let readsKeys = order.needsKeys && (keyReading != nil || state.images.contains(where: { sortKeys[$0.urlString] == nil }))
        // One update: no frame may name the new order over the tabs still in the old one.
        update {
            $0.order = order
            if readsKeys { $0.isSorting = true }
            $0.notice = Notice(
                "sorted by \(order.summary)\($0.isReversed ? ", reversed" : "") · \(Self.keyLabel(.order, in: $0)): \(order.next.summary) next"
            )
        }
        if readsKeys {
            resortsAfterReading = true
            readSortKeys()
            return
        }
        let waiting = waitingForKeys
        waitingForKeys = []
        reorder(state.images + waiting)
    }

    /// How the status line names the key of `action` now: its first key, or its name when it has none.
    static func keyLabel(_ action: BrowserAction, in state: BrowserState) -> String {
        state.keymap.keys(for: action).first?.label ?? action.rawValue
    }
}
