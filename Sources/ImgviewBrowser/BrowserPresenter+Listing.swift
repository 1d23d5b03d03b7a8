import ImgviewFetching

extension BrowserPresenter {
    /// Adds the tabs of a listing still under way as they arrive; the strip says "N+ images" with a
    /// spinner until it is done. The selection stays where it is.
    func receive(_ batches: AsyncStream<[AppImage]>) {
        update {
            $0.hasMorePages = true
            $0.isLoadingMorePages = true
        }
        listingTask = Task { [weak self] in
            for await batch in batches {
                guard let self else { return }
                self.catalog.images += batch
                self.admit(batch)
            }
            guard let self else { return }
            self.listingTask = nil
            self.update {
                $0.hasMorePages = self.catalog.next != nil
                $0.isLoadingMorePages = false
            }
        }
    }
}
