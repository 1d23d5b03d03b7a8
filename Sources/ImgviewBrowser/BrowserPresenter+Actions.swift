import Dispatch
import ImgviewFetching
import ImgviewPipeline
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// An image the last trash moved, and where it was in the lists, for undo.
struct TrashedImage: Sendable {
    var image: AppImage
    var file: TrashedFile
    /// Its place in the shown list and in the listing when it went.
    var index: Int
    var listingIndex: Int?
    var wasMarked: Bool
}

extension BrowserPresenter {
    // MARK: Copy

    /// Puts the marked images' paths (URLs for remote images), or the selected one's, on the
    /// clipboard with OSC 52, one per line.
    func copyTargets() {
        let targets = state.actionTargets
        guard !targets.isEmpty else { return }
        let items = targets.map { $0.url.isFileURL ? $0.url.path : $0.urlString }
        let text = ClipboardRoute.text(for: items)
        let clipboard = configuration.actions.clipboard
        let what = Self.describe(targets, one: targets[0].url.isFileURL ? "the path of" : "the URL of", many: "paths")
        Task {
            let route = await BlockingWork.run { clipboard() }
            do throws(ClipboardRoute.Refusal) {
                let (bytes, way) = try route.sequence(for: text)
                view?.write(bytes)
                update { $0.notice = Notice("copied \(what) to the clipboard (\(way))") }
            } catch {
                update { $0.notice = Notice("could not copy: \(error.message)", isError: true) }
            }
        }
    }

    // MARK: Open

    /// Opens the marked images, or the selected one, in the desktop's viewer; remote images are
    /// fetched through the caches and opened from a private copy.
    func openTargets() {
        let targets = state.actionTargets
        guard !targets.isEmpty else { return }
        let opener = configuration.actions.opener
        if case .unavailable(let reason) = opener.program {
            update { $0.notice = Notice("cannot open: \(reason)", isError: true) }
            return
        }
        let files = ActionFiles(pipeline: configuration.pipeline, folder: configuration.actions.copiesFolder)
        Task {
            let paths: [String]
            do {
                paths = try await Self.paths(for: targets, files: files)
            } catch let failure as ActionFileFailure {
                update { $0.notice = Notice("could not open \(failure.image.name): \(Self.message(for: failure.error))", isError: true) }
                return
            } catch {
                return
            }
            let what = Self.describe(targets, one: "", many: "images")
            switch await opener.open(paths) {
            case .success(let program):
                update { $0.notice = Notice("opened \(what) with \(program)") }
            case .failure(let failure):
                update { $0.notice = Notice("could not open \(what): \(failure.message)", isError: true) }
            }
        }
    }

    /// A file path for each of `targets`, in order; the first image that cannot have one throws.
    static func paths(for targets: [AppImage], files: ActionFiles) async throws -> [String] {
        var paths: [String] = []
        for image in targets {
            do {
                paths.append(try await files.path(for: image))
            } catch {
                throw ActionFileFailure(image: image, error: error)
            }
        }
        return paths
    }

    // MARK: Save

    /// `d` with marks: every marked image saved into the save folder, each under a free name.
    func saveMarked(_ images: [AppImage]) {
        let pipeline = configuration.pipeline
        let saver = ImageSaver(folder: configuration.saveFolder)
        let folder = Self.displayPath(configuration.saveFolder)
        Task {
            var saved = 0
            var failure: (AppImage, String)?
            for image in images {
                do {
                    let response = try await pipeline.bytes(for: ImageRequest(url: image.url))
                    let name = ImageSaver.fileName(for: image, format: response.entry.format)
                    _ = try await Task.detached {
                        try saver.save(try response.data(), preferredName: name, origin: response.entry.finalURL)
                    }.value
                    saved += 1
                } catch {
                    if failure == nil { failure = (image, Self.message(for: error)) }
                }
            }
            let savedText = "saved \(saved) image\(saved == 1 ? "" : "s") to \(folder)"
            if let (image, reason) = failure {
                let prefix = saved > 0 ? savedText + "; " : ""
                update { $0.notice = Notice("\(prefix)could not save \(image.name): \(reason)", isError: true) }
            } else {
                update { $0.notice = Notice(savedText) }
            }
        }
    }

    // MARK: Trash

    /// Moves the marked images, or the selected one, to the trash and takes their tabs away; what
    /// cannot be moved stays, and the status line says why.
    func trashTargets() {
        let targets = state.actionTargets
        guard !targets.isEmpty else { return }
        guard let trashCan = configuration.actions.trashCan else {
            update { $0.notice = Notice("there is no trash to move files to here", isError: true) }
            return
        }
        let local = targets.filter { $0.url.isFileURL }
        guard !local.isEmpty else {
            update {
                $0.notice = Notice(
                    "\(targets.count == 1 ? targets[0].name + " is not a local file" : "none of these is a local file"): only files go to the trash",
                    isError: true)
            }
            return
        }
        let now = Int(configuration.now().timeIntervalSince1970)
        Task {
            let results = await BlockingWork.run {
                local.map { image in
                    (image, Result { () throws(TrashError) -> TrashedFile in try trashCan.trash(image.url.path, now: now) })
                }
            }
            var moved: [(AppImage, TrashedFile)] = []
            var failed: [(AppImage, TrashError)] = []
            for (image, result) in results {
                switch result {
                case .success(let file): moved.append((image, file))
                case .failure(let error): failed.append((image, error))
                }
            }
            if !moved.isEmpty {
                let files = Dictionary(moved.map { ($0.0.urlString, $0.1) }, uniquingKeysWith: { first, _ in first })
                lastTrash = removeImages(Set(files.keys)).compactMap { removed in
                    files[removed.image.urlString].map {
                        TrashedImage(
                            image: removed.image, file: $0, index: removed.index, listingIndex: removed.listingIndex,
                            wasMarked: removed.wasMarked)
                    }
                }
            }
            let undo = Self.keyLabel(.undo, in: state)
            var parts: [String] = []
            if !moved.isEmpty {
                parts.append("moved \(Self.describe(moved.map(\.0), one: "", many: "images")) to the trash · \(undo) undoes")
            }
            if let (image, error) = failed.first {
                let more = failed.count > 1 ? " (and \(failed.count - 1) more)" : ""
                parts.append("could not move \(image.name) to the trash: \(error.reason)\(more); left in place")
            }
            let remote = targets.filter { !$0.url.isFileURL }
            if !remote.isEmpty {
                parts.append(remote.count == 1 ? "\(remote[0].name) is not a local file" : "\(remote.count) are not local files")
            }
            update { $0.notice = Notice(parts.joined(separator: "; "), isError: !failed.isEmpty) }
        }
    }

    /// Puts back what the last trash moved, each image in its old place, selected.
    func undoTrash() {
        guard !lastTrash.isEmpty, let trashCan = configuration.actions.trashCan else {
            update { $0.notice = Notice("nothing to undo") }
            return
        }
        let batch = lastTrash
        Task {
            let results = await BlockingWork.run {
                batch.map { item in Result { () throws(TrashError) in try trashCan.restore(item.file) } }
            }
            var restored: [TrashedImage] = []
            var kept: [TrashedImage] = []
            var firstError: (TrashedImage, TrashError)?
            for (item, result) in zip(batch, results) {
                switch result {
                case .success: restored.append(item)
                case .failure(let error):
                    kept.append(item)
                    if firstError == nil { firstError = (item, error) }
                }
            }
            lastTrash = kept
            reinsert(restored)
            if let (item, error) = firstError {
                update {
                    $0.notice = Notice(
                        "could not put \(item.image.name) back: \(error.reason)\(restored.isEmpty ? "" : " (\(restored.count) put back)")",
                        isError: true)
                }
            } else {
                update { $0.notice = Notice("put back \(Self.describe(restored.map(\.image), one: "", many: "images"))") }
            }
        }
    }

    /// Takes the images with these URLs out of the list (and the listing, and the marks); returns
    /// what was where. The selection stays on the same image, or moves to the one now in its place.
    func removeImages(_ urls: Set<String>) -> [(image: AppImage, index: Int, listingIndex: Int?, wasMarked: Bool)] {
        let selected = state.selectedImage?.urlString
        var removed: [(image: AppImage, index: Int, listingIndex: Int?, wasMarked: Bool)] = []
        var kept: [AppImage] = []
        for (index, image) in state.images.enumerated() {
            if urls.contains(image.urlString) {
                removed.append(
                    (image, index, catalog.images.firstIndex { $0.urlString == image.urlString }, state.marks.contains(image.urlString)))
            } else {
                kept.append(image)
            }
        }
        guard !removed.isEmpty else { return [] }
        catalog.images.removeAll { urls.contains($0.urlString) }
        let selectionGone = selected.map(urls.contains) ?? false
        let oldIndex = state.selectedIndex
        update {
            $0.images = kept
            $0.marks.subtract(urls)
            if let selected, !selectionGone, let index = kept.firstIndex(where: { $0.urlString == selected }) {
                $0.selectedIndex = index
            } else {
                // The image after it (before it at the end) takes its place.
                let before = removed.filter { $0.index < oldIndex }.count
                $0.selectedIndex = max(0, min(oldIndex - before, kept.count - 1))
            }
            if selectionGone { $0.viewport = .fit }
            if kept.isEmpty { $0.phase = .idle }
        }
        // With no tab left, a preview still on its way has nothing to be shown in.
        if kept.isEmpty { retireCurrent() }
        if selectionGone, !kept.isEmpty { select(state.selectedIndex, policy: .useCache) }
        return removed
    }

    /// Puts images back at their old places (in the listing too) and selects the first.
    private func reinsert(_ items: [TrashedImage]) {
        guard !items.isEmpty else { return }
        var images = state.images
        for item in items.sorted(by: { $0.index < $1.index }) {
            images.insert(item.image, at: min(item.index, images.count))
        }
        for item in items.sorted(by: { ($0.listingIndex ?? .max) < ($1.listingIndex ?? .max) }) {
            catalog.images.insert(item.image, at: min(item.listingIndex ?? catalog.images.count, catalog.images.count))
        }
        update {
            $0.images = images
            for item in items where item.wasMarked { $0.marks.insert(item.image.urlString) }
        }
        if state.order != .name || state.isReversed { reorder(state.images) }
        if let first = items.first, let index = state.images.firstIndex(where: { $0.urlString == first.image.urlString }) {
            select(index, policy: .useCache)
        }
    }

    // MARK: Key-handler

    /// The key-handler key: the next key goes to the key-handler.
    func awaitHandlerKey() {
        guard configuration.actions.keyHandler != nil else {
            update { $0.notice = Notice("there is no key-handler here", isError: true) }
            return
        }
        guard !isRunningKeyHandler else {
            update { $0.notice = Notice("the key-handler is still running", isError: true) }
            return
        }
        update {
            $0.awaitsHandlerKey = true
            $0.notice = Notice("key-handler: press a key (Esc cancels)")
        }
    }

    /// Runs the key-handler with `key` on the marked images (or the selected one). Afterwards a
    /// file it removed loses its tab, and the selected image is read again if it changed.
    func runKeyHandler(with key: BrowserKey) {
        update { $0.awaitsHandlerKey = false }
        guard let handler = configuration.actions.keyHandler, !state.actionTargets.isEmpty else { return }
        let targets = state.actionTargets
        let files = ActionFiles(pipeline: configuration.pipeline, folder: configuration.actions.copiesFolder)
        let name = key.name
        isRunningKeyHandler = true
        update { $0.notice = Notice("running the key-handler with \(name) on \(Self.describe(targets, one: "", many: "images"))…") }
        Task {
            defer { isRunningKeyHandler = false }
            let paths: [String]
            do {
                paths = try await Self.paths(for: targets, files: files)
            } catch let failure as ActionFileFailure {
                update {
                    $0.notice = Notice(
                        "key-handler: could not fetch \(failure.image.name): \(Self.message(for: failure.error))", isError: true)
                }
                return
            } catch {
                return
            }
            let before = await BlockingWork.run { targets.map { $0.url.isFileURL ? FileStamp(of: $0.url) : nil } }
            let outcome = await handler.run(key: name, paths: paths)
            let after = await BlockingWork.run { targets.map { $0.url.isFileURL ? FileStamp(of: $0.url) : nil } }
            var gone: Set<String> = []
            var changed: Set<String> = []
            for (index, image) in targets.enumerated() where image.url.isFileURL {
                if after[index] == nil, before[index] != nil {
                    gone.insert(image.urlString)
                } else if after[index] != before[index] {
                    changed.insert(image.urlString)
                }
            }
            for url in changed { configuration.pipeline.forget(URL(string: url)!) }
            if !gone.isEmpty { _ = removeImages(gone) }
            if let selected = state.selectedImage, changed.contains(selected.urlString) {
                select(state.selectedIndex, policy: .reload)
            }
            let goneText = gone.isEmpty ? "" : " · \(gone.count) file\(gone.count == 1 ? "" : "s") gone"
            switch outcome {
            case .success(let result) where result.status == 0:
                let said = result.lastLine.map { ": " + $0 } ?? " done"
                update { $0.notice = Notice("key-handler \(name)\(said)\(goneText)") }
            case .success(let result):
                let said = result.lastLine.map { ": " + $0 } ?? ""
                update { $0.notice = Notice("key-handler \(name) failed (exit \(result.status))\(said)\(goneText)", isError: true) }
            case .failure(let failure):
                update { $0.notice = Notice(failure.message, isError: true) }
            }
        }
    }

    // MARK: Helpers

    /// "a.jpg" for one image (after `one`), "3 images" (or `many`) for several.
    static func describe(_ images: [AppImage], one: String, many: String) -> String {
        images.count == 1 ? (one.isEmpty ? "" : one + " ") + images[0].name : "\(images.count) \(many)"
    }
}

/// An image an action needed a file of, and why it has none.
struct ActionFileFailure: Error {
    let image: AppImage
    let error: any Error
}
