extension BrowserPresenter {
    /// The slideshow key: starts a slideshow, stops a running one, resumes a paused one.
    func toggleSlideshow() {
        let seconds = Slideshow.text(state.slideshow.interval)
        update {
            switch $0.slideshow.status {
            case .off, .paused:
                $0.slideshow.status = .running
                $0.notice = Notice("slideshow: every \(seconds) · any key pauses it")
            case .running:
                $0.slideshow.status = .off
                $0.notice = Notice("slideshow stopped")
            }
        }
    }

    /// Any key but the slideshow's own pauses a running slideshow.
    func pauseSlideshow() {
        guard state.slideshow.status == .running else { return }
        state.slideshow.status = .paused
    }

    /// Says the slideshow paused, unless what the key did has something to say.
    func noteSlideshowPaused() {
        guard state.slideshow.status == .paused, state.notice == nil else {
            commit(state)
            return
        }
        update { $0.notice = Notice("slideshow paused · \(Self.keyLabel(.slideshow, in: $0)) resumes") }
    }

    /// Keeps the one wake-up that moves a running slideshow on: `interval` after the selected
    /// image was first shown whole (or failed), or after an animation's passes if longer (one pass
    /// of an endless one). None while it waits for an image or does not run.
    func followSlideshow(_ state: BrowserState) {
        guard state.slideshow.status == .running, state.overlay == nil, let image = state.selectedImage else {
            slideShown = nil
            scheduleSlide(at: nil)
            return
        }
        let now = configuration.clock.now
        var animation: Duration = .zero
        switch state.phase {
        case .loaded(let shown) where shown.facts.url == image.url && (shown.preview != nil || !state.layout.fits):
            if let timeline = shown.preview?.animation?.timeline { animation = timeline.totalDuration ?? timeline.passDuration }
        case .failed, .cancelled:
            break
        default:
            // Still on its way: the time starts when it shows.
            slideShown = nil
            scheduleSlide(at: nil)
            return
        }
        if slideShown?.url != image.urlString { slideShown = (image.urlString, now) }
        let shownAt = slideShown?.at ?? now
        scheduleSlide(at: shownAt + max(state.slideshow.interval, animation))
    }

    private func scheduleSlide(at deadline: Duration?) {
        slideWake.schedule(at: deadline, on: configuration.clock) { [weak self] in self?.advanceSlideshow() }
    }

    /// The next image; at the end (when no more are coming) the slideshow stops.
    private func advanceSlideshow() {
        guard state.slideshow.status == .running else { return }
        let next = state.selectedIndex + 1
        if state.images.indices.contains(next) {
            select(next, policy: .useCache)
        } else if state.isLoadingMorePages {
            // A folder still being listed, or a catalog's next page: go on when it is there.
            slideShown = nil
            scheduleSlide(at: configuration.clock.now + .milliseconds(250))
        } else {
            update {
                $0.slideshow.status = .off
                $0.notice = Notice("slideshow ended at the last image")
            }
        }
    }
}
