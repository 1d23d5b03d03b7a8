extension BrowserCommand {
    /// What a mouse event means on the screen `state` shows: a click on a tab selects it, the wheel
    /// over the strip or the preview moves between tabs (in an open panel, between its rows), a click
    /// on a key hint in the status line does what the key does, any click closes an open panel.
    /// Nil for events that mean nothing where they happen.
    public init?(mouse event: MouseEvent, on state: BrowserState) {
        let layout = state.layout
        guard layout.fits else { return nil }
        switch event.kind {
        case .wheelUp, .wheelDown:
            let forward = event.kind == .wheelDown
            if state.overlay != nil {
                self = forward ? .lineDown : .lineUp
                return
            }
            let box = layout.previewBox
            let overPreview =
                event.column >= box.column && event.column < box.column + box.width && event.row >= box.row
                && event.row < box.row + box.height
            guard event.row == 0 || overPreview else { return nil }
            if state.grid != nil, event.row != 0 {
                self = forward ? .lineDown : .lineUp
                return
            }
            self = forward ? .next : .previous
        case .press(button: 0):
            if state.overlay != nil {
                self = .dismiss
                return
            }
            if event.row == 0, let index = TabStripPlacement(state: state, columns: layout.size.columns).tab(at: event.column) {
                self = .jump(index)
                return
            }
            if let grid = state.grid, let gridLayout = state.gridLayout,
                let index = gridLayout.index(atColumn: event.column, row: event.row, firstRow: grid.firstRow, count: state.images.count)
            {
                self = .jump(index)
                return
            }
            guard event.row == layout.statusRow, BrowserScreen.statusShowsHints(state),
                let command = StatusHints(state: state).command(at: event.column, width: BrowserScreen.statusTextWidth(state))
            else { return nil }
            self = command
        default:
            return nil
        }
    }
}
