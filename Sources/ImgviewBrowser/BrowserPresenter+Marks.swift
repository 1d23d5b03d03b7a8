extension BrowserPresenter {
    /// Marks or unmarks the selected image, marks all (or, when all are, none), or inverts the marks.
    func changeMarks(_ command: BrowserCommand) {
        guard let selected = state.selectedImage else { return }
        update { state in
            switch command {
            case .toggleMark:
                let marked = state.marks.remove(selected.urlString) == nil
                if marked { state.marks.insert(selected.urlString) }
                state.notice = Notice("\(marked ? "marked" : "unmarked") \(selected.name)\(Self.markCount(state))")
            case .markAll:
                let all = Set(state.images.map(\.urlString))
                state.marks = all.isSubset(of: state.marks) ? [] : all
                state.notice = Notice(state.marks.isEmpty ? "no image marked" : "marked all \(state.marks.count) images")
            case .invertMarks:
                state.marks = Set(state.images.map(\.urlString)).subtracting(state.marks)
                state.notice = Notice("marks inverted\(Self.markCount(state))")
            default:
                break
            }
        }
    }

    /// " · 3 marked", or "" when none is.
    static func markCount(_ state: BrowserState) -> String {
        state.marks.isEmpty ? " · none marked" : " · \(state.marks.count) marked"
    }
}
