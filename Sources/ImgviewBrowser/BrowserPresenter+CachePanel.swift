extension BrowserPresenter {
    /// A command given while a panel is open; false when it is not one of the panel's own, and so closes it.
    func handleInPanel(_ command: BrowserCommand) -> Bool {
        guard case .cache(var overview) = state.overlay, !overview.rows.isEmpty else { return false }
        let last = overview.rows.count - 1
        let page = max(1, BrowserScreen.cacheRowsShown(in: state.layout))
        switch command {
        case .lineUp: overview.selectedRow = max(0, overview.selectedRow - 1)
        case .lineDown: overview.selectedRow = min(last, overview.selectedRow + 1)
        case .pageBack: overview.selectedRow = max(0, overview.selectedRow - page)
        case .pageForward: overview.selectedRow = min(last, overview.selectedRow + page)
        case .first: overview.selectedRow = 0
        case .last: overview.selectedRow = last
        case .remove:
            removeFromCache(overview)
            return true
        default:
            return false
        }
        update { $0.overlay = .cache(overview) }
        return true
    }

    /// Removes the panel's selected entry from the disk cache (and from what the pipeline knows of it).
    private func removeFromCache(_ overview: CacheOverview) {
        guard let cache = configuration.diskCache, overview.rows.indices.contains(overview.selectedRow) else { return }
        let row = overview.rows[overview.selectedRow]
        let pipeline = configuration.pipeline
        Task {
            let result = await Task.detached { Result { try cache.remove(row.url) } }.value
            pipeline.forget(row.url)
            guard case .cache(var shown) = state.overlay else { return }
            switch result {
            case .success:
                shown.rows.removeAll { $0.url == row.url }
                shown.totalBytes = max(0, shown.totalBytes - max(0, row.byteCount))
                shown.selectedRow = min(shown.selectedRow, max(0, shown.rows.count - 1))
                update {
                    $0.overlay = .cache(shown)
                    $0.notice = Notice("removed \(row.name ?? row.url.absoluteString) from the cache")
                }
            case .failure(let error):
                update { $0.notice = Notice("could not remove it: \(Self.message(for: error))", isError: true) }
            }
        }
    }
}
