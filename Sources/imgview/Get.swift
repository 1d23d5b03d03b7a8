import ArgumentParser
import ImgviewFetching
import ImgviewHTML
import ImgviewPipeline
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

extension Imgview {
    /// `imgview get`: downloads images through the caches, like `curl -O`.
    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "get",
            abstract: "Download images through the cache into the current folder (like curl -O).",
            discussion: """
                Each image is saved under its URL's file name and the path is printed; when two \
                URLs end in the same name, the later ones get -1, -2... before the extension. The \
                file appears whole or not at all, is a file of its own (never linked to the cache), \
                and an existing file is kept unless --force is given; a file that already holds \
                exactly these bytes is up to date and left alone (exit 0, like wget -N). Only \
                regular files and links are ever replaced, never a device node, FIFO or folder. \
                -o - writes the image to standard output. A progress bar is shown on stderr when \
                it is a terminal. A download cut short (Ctrl-C, a lost connection) keeps its bytes \
                in the cache, and the next fetch of the URL asks the server only for the rest \
                when the server allows it (like curl -C -, but never splicing a changed body).

                -i FILE reads more URLs or names from FILE ('-': standard input), one per line; \
                blank lines and lines starting with # are skipped, a bad line is reported with \
                its line number and the others go on, and a summary ends the run. --json prints \
                one JSON object per image as it finishes (url, path, status, bytes, sha256, \
                error, exit_code…) instead of its path.

                --page URL reads a web page (HTML, parsed by libxml2) and downloads the images it \
                shows or links: img src and the largest srcset candidate, picture sources, \
                og:image and twitter:image, links to image files; resolved against the page, \
                without duplicates, in page order, at most 1,000.

                Exit codes: 0 all saved; 1 some failed; when every image failed, the code of the \
                first failure (see 'imgview --help').
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup(title: "Network Options") var network: ServiceOptions

        @Argument(help: "Catalog names or http(s)/file URLs.")
        var images: [String] = []

        @Flag(help: "Download every image of the catalog.")
        var all = false

        @Option(
            name: [.customShort("i"), .customLong("input-file")],
            help: ArgumentHelp(
                "Also download the URLs or names listed in this file, one per line ('-' for standard input; # starts a comment line).",
                valueName: "file"))
        var inputFile: String?

        @Option(
            help: ArgumentHelp(
                "Also download the images this web page shows or links (img, srcset, picture, og:image, links to images).",
                valueName: "url"))
        var page: String?

        @Option(
            name: .customShort("o"),
            help: ArgumentHelp("Save the (single) image as this file ('-' for standard output).", valueName: "file"))
        var output: String?

        @Option(name: .customShort("O"), help: ArgumentHelp("Save into this folder.", valueName: "dir"))
        var outputDirectory: String?

        @Option(name: .customLong("jobs"), help: ArgumentHelp("How many images to download at once (default: 4).", valueName: "n"))
        var jobsOption: Int?

        /// `--jobs`, else the config file's, else 4.
        var jobs: Int { Settings.shared.integer("jobs", commandLine: jobsOption, standard: 4) }

        @Flag(help: "Overwrite files that exist.")
        var force = false

        @Flag(name: .shortAndLong, help: "No progress bar.")
        var quiet = false

        @Flag(help: "Print one JSON object per image as it finishes, instead of its path.")
        var json = false

        func validate() throws {
            if images.isEmpty && !all && inputFile == nil && page == nil {
                throw ValidationError("name an image (or a URL), or use --all")
            }
            if (!images.isEmpty || inputFile != nil || page != nil) && all {
                throw ValidationError("--all downloads the whole catalog; name no images with it")
            }
            if output != nil && outputDirectory != nil { throw ValidationError("-o and -O cannot be used together") }
            if output != nil && (all || images.count > 1 || inputFile != nil || page != nil) {
                throw ValidationError("-o saves a single image; use -O DIR for several")
            }
            if let page, !(page.lowercased().hasPrefix("http://") || page.lowercased().hasPrefix("https://")) || URL(string: page) == nil {
                throw ValidationError("--page takes an http(s) URL")
            }
            if json && output == "-" { throw ValidationError("--json and -o - both write to standard output") }
            if let jobs = jobsOption, !(1...64).contains(jobs) { throw ValidationError("--jobs takes 1 to 64") }
        }

        func run() async throws {
            let loader = try network.makeLoader()
            let catalog = CatalogOnce(global: global, loader: loader)
            var items: [DownloadItem] = []
            if all {
                items = try await catalog.value().images.map {
                    DownloadItem(input: $0.name, line: nil, reference: .success(ImageReference(image: $0, url: $0.url)))
                }
            } else {
                // A bad argument stops the command before anything is fetched; a bad line of a list is that line's failure.
                for argument in images {
                    let reference = try await ImageReference.resolve(argument) { try await catalog.value() }
                    items.append(DownloadItem(input: argument, line: nil, reference: .success(reference)))
                }
                if let page, let url = URL(string: page) {
                    let found = try await PageReader(loader: loader, parsing: LibXMLHTMLParser()).read(url)
                    guard !found.images.isEmpty else { throw PageError.noImages(url) }
                    for image in found.images {
                        items.append(
                            DownloadItem(
                                input: image.url.absoluteString, line: nil, reference: .success(ImageReference(image: nil, url: image.url)))
                        )
                    }
                    if found.isCut {
                        StandardError.print(
                            "imgview: \(TerminalText.sanitized(page)): only the first \(found.images.count) images of the page are taken")
                    }
                }
                if let inputFile {
                    let list = inputFile == "-" ? "stdin" : inputFile
                    for (number, entry) in DownloadList.entries(try DownloadList.read(inputFile)) {
                        let reference: Result<ImageReference, any Error>
                        do {
                            reference = .success(try await ImageReference.resolve(entry) { try await catalog.value() })
                        } catch {
                            reference = .failure(error)
                        }
                        items.append(DownloadItem(input: entry, line: (list, number), reference: reference))
                    }
                }
            }
            let folder = URL(fileURLWithPath: outputDirectory ?? ".").standardizedFileURL
            if outputDirectory != nil {
                var isDirectory: Bool = false
                guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory else {
                    throw OutputError.notAFolder(folder.path)
                }
            }
            let target: DownloadPlan.Target =
                switch output {
                case "-": .standardOutput
                case let file?: .file(URL(fileURLWithPath: file).standardizedFileURL)
                case nil: .folder(folder)
                }
            let references = items.compactMap { try? $0.reference.get() }
            let fetcher = try network.makeFetcher(global: global, loader: loader, keepsImagesInMemory: false)
            let pipeline = ServiceOptions.makePipeline(fetcher: fetcher, offline: global.isOffline, keepsImagesInMemory: false)
            let display = ProgressDisplay(enabled: !quiet && isatty(STDERR_FILENO) == 1, total: references.count)
            let plan = DownloadPlan(pipeline: pipeline, references: references, target: target, replace: force, display: display)

            // A request to end (Ctrl-C, SIGTERM, SIGHUP, …) cancels the downloads, whose temporary files go with them
            // (a partial download stays in the cache, for the next fetch to continue).
            let json = json
            let itemCount = items.count
            let work = Task { await Self.download(items, plan: plan, display: display, jobs: jobs, json: json) }
            let observation = ProcessSignals.onTermination { _ in work.cancel() }
            let failures = await work.value
            observation.cancel()
            defer { fetcher.configuration.diskCache?.removeTemporaryFilesOfThisProcess() }
            if let number = ProcessSignals.terminationSignal {
                await pipeline.cancelAll()
                display.clear()
                throw Terminated(signal: number)
            }
            display.finish()
            if inputFile != nil || page != nil, itemCount > 1 {
                let saved = itemCount - failures.count
                StandardError.print("imgview: \(itemCount) images: \(saved) saved, \(failures.count) failed")
            }
            guard let first = failures.first else { return }
            if failures.count < itemCount { throw ExitCode(ExitStatus.partialFailure.rawValue) }
            throw ExitCode((first as? any UserFacingError)?.exitStatus.rawValue ?? 1)
        }

        /// Downloads `items`, `jobs` at a time, printing each path (or JSON line) or error as it finishes.
        ///
        /// - Returns: the failures; none are printed once the downloads are cancelled.
        private static func download(
            _ items: [DownloadItem], plan: DownloadPlan, display: ProgressDisplay, jobs: Int, json: Bool
        ) async -> [any Error] {
            var failures: [any Error] = []
            await withTaskGroup(of: (Int, Result<DownloadPlan.Download, any Error>, Duration).self) { group in
                var next = 0
                func startNext() {
                    guard next < items.count, !Task.isCancelled else { return }
                    let index = next
                    next += 1
                    group.addTask {
                        let started = ContinuousClock.now
                        switch items[index].reference {
                        case .success(let reference): return (index, await plan.download(reference), ContinuousClock.now - started)
                        case .failure(let error): return (index, .failure(error), .zero)
                        }
                    }
                }
                for _ in 0..<min(jobs, items.count) { startNext() }
                while let (index, result, elapsed) = await group.next() {
                    display.clear()
                    if case .failure(let error) = result { failures.append(error) }
                    if Task.isCancelled, case .failure = result { continue }
                    if json {
                        StandardOutput.write(DownloadReport(item: items[index], result: result, elapsed: elapsed).jsonLine() + "\n")
                    }
                    switch result {
                    case .success(let download):
                        switch download.saved {
                        case .written(let path), .upToDate(let path):
                            if !json { StandardOutput.write(path.path + "\n") }
                        case .printed:
                            break
                        }
                    case .failure(let error):
                        let message = (error as? any UserFacingError)?.message ?? String(describing: error)
                        let label = items.count > 1 ? items[index].label ?? "image" : nil
                        StandardError.print("imgview: \(label.map { "\($0): " } ?? "")\(message)")
                    }
                    startNext()
                }
            }
            return failures
        }
    }
}

/// Loads the catalog at most once, and only if a name needs it.
actor CatalogOnce {
    private let global: GlobalOptions
    private let loader: any DataLoading
    private var loaded: Catalog?

    init(global: GlobalOptions, loader: any DataLoading) {
        self.global = global
        self.loader = loader
    }

    func value() async throws -> Catalog {
        if let loaded { return loaded }
        let catalog = try await global.loadCatalog(using: loader)
        loaded = catalog
        return catalog
    }
}
