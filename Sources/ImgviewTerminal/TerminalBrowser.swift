import Dispatch
import ImgviewBrowser
import ImgviewProcess
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// The browser on a real terminal: the `BrowserView` that draws with ncurses, and the event
/// sources that feed the presenter (keys, resizes, termination signals, the spinner's timer).
///
/// Everything runs on the main queue, which the main actor drains while `run` awaits: no thread
/// polls, so an idle browser costs no CPU.
@MainActor
public final class TerminalBrowser: BrowserView {
    /// How the browser ended.
    public enum Ending: Sendable, Equatable {
        case quit
        /// A request to end (SIGTERM, SIGINT, SIGHUP, SIGQUIT, …) arrived, or the terminal went away.
        case signal(Int32)
    }

    private let terminal: CursesTerminal
    private weak var presenter: BrowserPresenter?
    private var state: BrowserState?
    private var spinnerFrame = 0
    private var emptyWakeups = 0
    private var spinnerTimer: (any DispatchSourceTimer)?
    private var sources: [any DispatchSourceProtocol] = []
    private var observations: [SignalObservation] = []
    /// Follows the tmux pane for an image passed through tmux.
    private var tmuxWatcher: TmuxWatcher?
    private var finish: CheckedContinuation<Ending, Never>?
    private let frameLog: FrameLog?
    private let inputLog: InputLog?

    /// - Parameters:
    ///   - frameLogPath: where to append keypress-to-frame times (for the benchmark), if anywhere.
    ///   - inputLogPath: where to append every key and mouse event read (for tests), if anywhere.
    public init(terminal: CursesTerminal, frameLogPath: String? = nil, inputLogPath: String? = nil) {
        self.terminal = terminal
        frameLog = frameLogPath.flatMap(FrameLog.init(path:))
        inputLog = inputLogPath.flatMap(InputLog.init(path:))
    }

    /// Shows `presenter`'s screen and feeds it input until the user quits; the terminal is
    /// restored before this returns.
    public func run(_ presenter: BrowserPresenter) async -> Ending {
        self.presenter = presenter
        presenter.view = self
        listen()
        presenter.start()
        let ending = await withCheckedContinuation { finish = $0 }
        for source in sources { source.cancel() }
        sources = []
        for observation in observations { observation.cancel() }
        observations = []
        tmuxWatcher?.stop()
        tmuxWatcher = nil
        spinnerTimer?.cancel()
        spinnerTimer = nil
        presenter.shutDown()
        terminal.end()
        return ending
    }

    public func display(_ state: BrowserState) {
        self.state = state
        redraw()
        animateSpinner(BrowserScreen.isAnimated(state))
    }

    public func write(_ sequence: [UInt8]) {
        terminal.write(sequence)
    }

    // MARK: Events

    private func listen() {
        let input = DispatchSource.makeReadSource(fileDescriptor: STDIN_FILENO, queue: .main)
        input.setEventHandler { [weak self] in MainActor.assumeIsolated { self?.readInput() } }
        sources = [input]
        for source in sources { source.resume() }
        // ncurses handles SIGWINCH until this takes it over; then the size comes from the kernel.
        let resize = ProcessSignals.onWindowChange {
            DispatchQueue.main.async { [weak self] in MainActor.assumeIsolated { self?.resized(nil) } }
        }
        let termination = ProcessSignals.onTermination { number in
            DispatchQueue.main.async { [weak self] in MainActor.assumeIsolated { self?.end(.signal(number)) } }
        }
        observations = [resize, termination]
        if let pane = terminal.tmuxPane {
            tmuxWatcher = TmuxWatcher(pane: pane) { [weak self] geometry, redrawn in
                self?.terminal.tmuxPaneChanged(geometry, redrawn: redrawn)
            }
        }
    }

    private func readInput() {
        // A closed terminal keeps stdin readable with nothing to read; a real hang-up also
        // raises SIGHUP, but a revoked pty may not. A few empty wake-ups in a row mean it is gone.
        if terminal.inputIsClosed {
            emptyWakeups += 1
            if emptyWakeups > 50 { end(.signal(SIGHUP)) }
            return
        }
        emptyWakeups = 0
        for input in terminal.readKeys() {
            inputLog?.record(input)
            guard let presenter else { return }
            let goesOn: Bool
            switch input {
            case .key(.suspend):
                terminal.suspend()
                redraw()
                continue
            case .key(let key):
                if let command = presenter.state.keymap.command(for: key) {
                    frameLog?.keyPressed(command, from: presenter.state.selectedIndex)
                }
                goesOn = presenter.handle(key: key)
            case .mouse(let event):
                if let command = BrowserCommand(mouse: event, on: presenter.state) {
                    frameLog?.keyPressed(command, from: presenter.state.selectedIndex)
                }
                goesOn = presenter.handle(mouse: event)
            case .resized(let size):
                resized(size)
                continue
            }
            if !goesOn {
                end(.quit)
                return
            }
        }
    }

    private func resized(_ reported: TerminalSize?) {
        let size = reported ?? terminal.adoptKernelSize()
        presenter?.resize(to: size)
        // The last frame is gone even when the size is not new: draw everything again.
        redraw()
    }

    private func end(_ ending: Ending) {
        finish?.resume(returning: ending)
        finish = nil
    }

    // MARK: Drawing

    private func redraw() {
        guard var state else { return }
        // The terminal's own size wins over a state that has not caught up with a resize yet.
        state.terminalSize = terminal.size
        terminal.draw(BrowserScreen(state: state, spinnerFrame: spinnerFrame, now: Date()).compose())
        frameLog?.frameDrawn(state)
    }

    private func animateSpinner(_ animated: Bool) {
        if !animated {
            spinnerTimer?.cancel()
            spinnerTimer = nil
            return
        }
        guard spinnerTimer == nil else { return }
        let timer = DispatchSource.makeTimerSource(queue: .main)
        timer.schedule(deadline: .now() + .milliseconds(100), repeating: .milliseconds(100), leeway: .milliseconds(20))
        timer.setEventHandler { [weak self] in
            MainActor.assumeIsolated {
                guard let self else { return }
                self.spinnerFrame += 1
                self.redraw()
            }
        }
        timer.resume()
        spinnerTimer = timer
    }
}

/// Appends, for each tab switch, the milliseconds from the key to the first frame showing the
/// selected image's preview (`12.345 memory`), before it `selected 0.456` when the switch drew a
/// frame with the new tab selected but no preview yet; once, when the first preview is on screen,
/// `first-preview <seconds since 1970>`; and, as `partial MS BYTES`, the wall-clock time of the
/// first picture of a download and the bytes it showed. In the grid, a key's time runs to the
/// first frame in which every visible cell is drawn (a thumbnail or a failure): `grid 12.345`.
/// What `bench/bench_tui.py`, `bench/bench_browse.py`, `bench/bench_partial.py` and
/// `bench/bench_grid_browser.py` read (env `IMGVIEW_FRAME_LOG`).
@MainActor
final class FrameLog {
    private let handle: LogFile
    private var pending: (command: BrowserCommand, at: ContinuousClock.Instant, from: Int, selectionDrawn: Bool)?
    private var hasShownAPreview = false
    private var partialLogged: URL?

    init?(path: String) {
        guard let handle = LogFile(path: path) else { return nil }
        self.handle = handle
    }

    /// A key that may switch tabs, pressed while tab `index` was selected.
    func keyPressed(_ command: BrowserCommand, from index: Int) {
        switch command {
        case .next, .previous, .jump, .first, .last, .pageForward, .pageBack, .toggleGrid:
            pending = (command, .now, index, false)
        default: pending = nil
        }
    }

    func frameDrawn(_ state: BrowserState) {
        if case .loading(let received, _, .some) = state.phase, let url = state.selectedImage?.url, url != partialLogged {
            // The first picture of a download: when, by the wall clock, and how much had come.
            partialLogged = url
            handle.writeLine(String(printf: "partial %.3f %lld", Date().timeIntervalSince1970 * 1000, received))
        }
        if let grid = state.grid {
            // The screen is whole when no visible cell is still loading.
            guard let pending, !grid.cells.isEmpty, !grid.cells.values.contains(.loading) else { return }
            self.pending = nil
            handle.writeLine(String(printf: "grid %.3f", pending.at.duration(to: .now).seconds * 1000))
            return
        }
        guard case .loaded(let shown) = state.phase, shown.preview != nil else {
            if let switching = pending, !switching.selectionDrawn, state.selectedIndex != switching.from {
                pending?.selectionDrawn = true
                handle.writeLine(String(printf: "selected %.3f", switching.at.duration(to: .now).seconds * 1000))
            }
            return
        }
        if !hasShownAPreview {
            hasShownAPreview = true
            handle.writeLine(String(printf: "first-preview %.6f", Date().timeIntervalSince1970))
        }
        guard let pending else { return }
        let elapsed = pending.at.duration(to: .now)
        self.pending = nil
        handle.writeLine(String(printf: "%.3f ", elapsed.seconds * 1000) + shown.facts.source.rawValue)
    }
}
