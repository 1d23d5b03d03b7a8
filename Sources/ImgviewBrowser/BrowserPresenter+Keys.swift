extension BrowserPresenter {
    /// Carries out what `key` means now: in a prompt it edits the prompt, digits go to a tab,
    /// anything else is its `BrowserCommand`. Returns false when the user asked to quit.
    @discardableResult
    public func handle(key: BrowserKey) -> Bool {
        if key == .interrupt { return handle(.quit) }
        // Any key pauses a running slideshow (and does what it does); the slideshow key stops it.
        let pauses = state.slideshow.status == .running && state.keymap.action(for: key) != .slideshow
        if pauses { pauseSlideshow() }
        defer { if pauses { noteSlideshowPaused() } }
        if state.awaitsHandlerKey {
            if key == .escape {
                update {
                    $0.awaitsHandlerKey = false
                    $0.notice = Notice("key-handler cancelled")
                }
            } else {
                runKeyHandler(with: key)
            }
            return true
        }
        if let overlay = state.overlay, case .cache = overlay, let command = Self.panelCommand(for: key) {
            return handle(command)
        }
        if state.overlay == nil, let prompt = state.prompt {
            guard let unused = edit(prompt, with: key) else { return true }
            // The key ended the prompt and means something of its own.
            return handle(key: unused)
        }
        if state.overlay == nil, case .character(let character) = key, character.isASCII, let digit = character.wholeNumberValue,
            digit > 0, state.keymap.action(for: key) == nil
        {
            openPrompt(.goTo)
            if let prompt = state.prompt { _ = edit(prompt, with: key) }
            return true
        }
        if state.overlay == nil, state.grid != nil, let command = gridCommand(for: key) { return handle(command) }
        guard let command = state.keymap.command(for: key) else { return true }
        return handle(command)
    }

    /// What a key means in the grid beyond the keymap: Enter opens the selected image, ↑ ↓ (and
    /// `k` `j`, when not bound to something else) move a row.
    private func gridCommand(for key: BrowserKey) -> BrowserCommand? {
        switch key {
        case .enter: return .toggleGrid
        case .up: return .lineUp
        case .down: return .lineDown
        case .character("k") where state.keymap.action(for: key) == nil: return .lineUp
        case .character("j") where state.keymap.action(for: key) == nil: return .lineDown
        default: return nil
        }
    }

    /// What a key means in the cache panel whatever the keymap says: ↑ ↓ and Del work on its rows.
    private static func panelCommand(for key: BrowserKey) -> BrowserCommand? {
        switch key {
        case .up: .lineUp
        case .down: .lineDown
        case .delete: .remove
        case .pageUp: .pageBack
        case .pageDown: .pageForward
        case .home: .first
        case .end: .last
        default: nil
        }
    }

    /// Carries out what a mouse event means where it happened; an open prompt is accepted first.
    @discardableResult
    public func handle(mouse event: MouseEvent) -> Bool {
        if state.prompt != nil, case .press = event.kind { update { $0.prompt = nil } }
        if state.awaitsHandlerKey, case .press = event.kind { update { $0.awaitsHandlerKey = false } }
        guard let command = BrowserCommand(mouse: event, on: state) else { return true }
        if state.grid != nil, state.overlay == nil, case .press(button: 0) = event.kind, case .jump(let index) = command,
            event.row != 0
        {
            clickInGrid(index)
            return true
        }
        return handle(command)
    }

    // MARK: Moving far

    /// Home, End, PgUp, PgDn. A page is as many tabs as the strip shows.
    func navigate(_ command: BrowserCommand) {
        let last = state.images.count - 1
        guard last >= 0 else { return }
        var page: Int {
            if let grid = state.gridLayout { return grid.cellsPerScreen }
            return max(1, TabStripPlacement(state: state, columns: state.terminalSize.columns).strip.tabs.count)
        }
        let target: Int
        switch command {
        case .first: target = 0
        case .last: target = last
        case .pageForward: target = min(last, state.selectedIndex + page)
        case .pageBack: target = max(0, state.selectedIndex - page)
        default: return
        }
        if target != state.selectedIndex { select(target, policy: .useCache) }
    }

    // MARK: Prompts

    func openPrompt(_ kind: BrowserPrompt.Kind) {
        update { $0.prompt = BrowserPrompt(kind: kind, origin: $0.selectedIndex) }
    }

    /// Applies `key` to the open prompt. Returns the key when it closed the prompt without being
    /// used (an arrow after a search, a letter after a number), to be carried out as usual.
    private func edit(_ prompt: BrowserPrompt, with key: BrowserKey) -> BrowserKey? {
        var prompt = prompt
        switch key {
        case .escape:
            update { $0.prompt = nil }
            if state.selectedIndex != prompt.origin { select(prompt.origin, policy: .useCache) }
            return nil
        case .enter:
            update { $0.prompt = nil }
            return nil
        case .backspace:
            prompt.text = String(prompt.text.dropLast())
            follow(prompt, from: prompt.origin)
            return nil
        default:
            break
        }
        switch prompt.kind {
        case .find:
            switch key {
            case .character(let character):
                prompt.text.append(character)
                follow(prompt, from: prompt.origin)
            case .down, .tab:
                follow(prompt, from: state.selectedIndex + 1)
            case .up, .backTab:
                follow(prompt, from: state.selectedIndex - 1, forward: false)
            default:
                update { $0.prompt = nil }
                return key
            }
        case .goTo:
            guard case .character(let character) = key, character.isASCII, let digit = character.wholeNumberValue else {
                update { $0.prompt = nil }
                return key
            }
            prompt.text = BrowserPrompt.goToText(prompt.text, typing: digit, tabCount: state.images.count)
            follow(prompt, from: prompt.origin)
            // Done when no further digit could name a tab: at once in a catalog of nine or fewer.
            if let number = Int(prompt.text + "0"), number > state.images.count, !(state.prompt?.hasNoMatch ?? false) {
                update { $0.prompt = nil }
            }
        }
        return nil
    }

    /// Selects the tab `prompt` names (looking from `start`), and shows the prompt as it now reads.
    private func follow(_ prompt: BrowserPrompt, from start: Int, forward: Bool = true) {
        var prompt = prompt
        let target: Int?
        switch prompt.kind {
        case .find:
            let count = state.images.count
            target = TabFinder(query: prompt.text).match(
                in: state.images.lazy.map(\.name), from: (start + count) % max(1, count), forward: forward)
        case .goTo:
            target =
                prompt.text.isEmpty
                ? prompt.origin : Int(prompt.text).map { $0 - 1 }.flatMap { state.images.indices.contains($0) ? $0 : nil }
        }
        prompt.hasNoMatch = target == nil
        update { $0.prompt = prompt }
        if let target, target != state.selectedIndex { select(target, policy: .useCache) }
    }
}
