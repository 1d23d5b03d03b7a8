import ArgumentParser
import ImgviewFetching
import ImgviewImaging
import ImgviewPipeline
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `--grid`'s value: cells across and down to a sheet, or `auto`.
struct SheetGrid: ExpressibleByArgument {
    /// nil for auto.
    var size: (columns: Int, rows: Int)?

    init?(argument: String) {
        if argument.lowercased() == "auto" {
            size = nil
            return
        }
        guard let box = CellBox(argument: argument), box.columns <= 100, box.rows <= 100 else { return nil }
        size = (box.columns, box.rows)
    }
}

extension Imgview.Show {
    /// A text cell's pixel size for a cell aspect: 10 pixels wide.
    static func textCell(cellAspect: Double) -> CellPixelSize {
        CellPixelSize(width: 10, height: Int((10 * cellAspect).rounded()))
    }
}

/// Prints contact sheets row by row as their images arrive: every image asked for at once (a
/// window ahead of the row being printed), each as a thumbnail through the pipeline, so local
/// files' lasting thumbnails are used and made.
struct SheetPrinter {
    let sheet: ContactSheet
    /// A cell's render options (its box, the mode, pixels or not).
    let options: RenderOptions
    let pipeline: ImagePipeline
    /// How many images are asked for ahead of the row being printed.
    var window = 32

    func print(_ items: [(argument: String, url: Result<URL, any Error>)]) async throws {
        // Text needs a few pixels a cell: `large` serves it, and is what file managers read; pixels
        // need the cell's own size.
        let thumbnail = options.graphics.map { ThumbnailSize.covering(sheet.cellWidth * $0.cell.width) } ?? .large
        var tasks: [Int: PreviewTask] = [:]
        var started = 0
        func startUpTo(_ end: Int) {
            while started < min(items.count, end) {
                if case .success(let url) = items[started].url {
                    var cellOptions = options
                    // Each image its own kitty id: sending an id again takes the earlier one off the screen.
                    cellOptions.graphics?.imageID = UInt32(started + 1)
                    tasks[started] = pipeline.previewTask(
                        for: PreviewRequest(url: url, options: cellOptions, thumbnail: thumbnail), priority: .high)
                }
                started += 1
            }
        }
        defer { for task in tasks.values { task.cancel() } }
        var failures: [any Error] = []
        let perSheet = sheet.cellsPerSheet ?? max(1, items.count)
        var index = 0
        while index < items.count {
            if index > 0, index % perSheet == 0 { StandardOutput.write("\n") }
            let end = min(items.count, index + sheet.columns, (index / perSheet + 1) * perSheet)
            startUpTo(end + window)
            var row: [(preview: RenderedPreview?, name: String)] = []
            for position in index..<end {
                let item = items[position]
                let name = Self.name(of: item.argument)
                do {
                    // An argument that named no image fails with its own reason.
                    _ = try item.url.get()
                    guard let task = tasks.removeValue(forKey: position) else { throw CancellationError() }
                    row.append((try await task.response.preview, name))
                } catch let error where error is CancellationError || (error as? ImagePipelineError) == .cancelled {
                    throw error
                } catch {
                    failures.append(error)
                    StandardError.print("imgview: \(ImageArguments.line(for: error, argument: item.argument))")
                    row.append((nil, "✗ " + name))
                }
            }
            write(row, firstIndex: index % perSheet)
            index = end
        }
        await pipeline.finishThumbnails()
        guard let first = failures.first else { return }
        if failures.count < items.count { throw ExitCode(ExitStatus.partialFailure.rawValue) }
        throw ExitCode((first as? any UserFacingError)?.exitStatus.rawValue ?? 1)
    }

    /// One row of the sheet: as text, or pixels placed cell by cell over reserved lines.
    private func write(_ row: [(preview: RenderedPreview?, name: String)], firstIndex: Int) {
        guard options.graphics != nil else {
            StandardOutput.write(sheet.rowText(row.map { ($0.preview?.grid, $0.name) }))
            return
        }
        // Lines for the row first (scrolling if need be), then back up to its top: each image is
        // drawn from there with the cursor saved and restored, moved right to its cell.
        let height = sheet.imageRows
        var output: [UInt8] = Array(String(repeating: "\n", count: height).utf8) + EscapeSequence.cursorUp(height)
        for (offset, item) in row.enumerated() {
            guard let graphics = item.preview?.graphics else { continue }
            let column = offset * (sheet.cellWidth + 1) + (sheet.cellWidth - graphics.layout.columns) / 2
            let line = (height - graphics.layout.rows) / 2
            output += EscapeSequence.saveCursor
            if line > 0 { output += EscapeSequence.cursorDown(line) }
            if column > 0 { output += EscapeSequence.cursorForward(column) }
            output += graphics.bytes
            if let placeholders = graphics.placeholders { output += placeholders.block(column: column) }
            output += EscapeSequence.restoreCursor
        }
        output += EscapeSequence.cursorDown(height) + [UInt8(ascii: "\r")]
        StandardOutput.write(Data(output))
        if sheet.hasLabels {
            var line = row.map { sheet.label($0.name) }.joined(separator: " ")
            while line.hasSuffix(" ") { line.removeLast() }
            StandardOutput.write(line + "\n")
        }
    }

    /// What a cell is labelled: a file's name, a URL's last part.
    static func name(of argument: String) -> String {
        if argument == "-" { return "standard input" }
        if let url = URL(string: argument), let scheme = url.scheme, ["http", "https", "file"].contains(scheme.lowercased()) {
            let last = url.lastPathComponent
            return last.isEmpty || last == "/" ? argument : last
        }
        return argument.split(separator: "/").last.map(String.init) ?? argument
    }
}
