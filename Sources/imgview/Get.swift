import ArgumentParser
import ImgviewFetching
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
                it is a terminal.

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

        func validate() throws {
            if images.isEmpty && !all { throw ValidationError("name an image (or a URL), or use --all") }
            if !images.isEmpty && all { throw ValidationError("--all downloads the whole catalog; name no images with it") }
            if output != nil && outputDirectory != nil { throw ValidationError("-o and -O cannot be used together") }
            if output != nil && (all || images.count > 1) { throw ValidationError("-o saves a single image; use -O DIR for several") }
            if let jobs = jobsOption, !(1...64).contains(jobs) { throw ValidationError("--jobs takes 1 to 64") }
        }

        func run() async throws {
            let loader = try network.makeLoader()
            let catalog = CatalogOnce(global: global, loader: loader)
            let references: [ImageReference]
            if all {
                references = try await catalog.value().images.map { ImageReference(image: $0, url: $0.url) }
            } else {
                var resolved: [ImageReference] = []
                for argument in images {
                    resolved.append(try await ImageReference.resolve(argument) { try await catalog.value() })
                }
                references = resolved
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
            let fetcher = try network.makeFetcher(global: global, loader: loader, keepsImagesInMemory: false)
            let pipeline = ServiceOptions.makePipeline(fetcher: fetcher, offline: global.isOffline, keepsImagesInMemory: false)
            let display = ProgressDisplay(enabled: !quiet && isatty(STDERR_FILENO) == 1, total: references.count)
            let plan = DownloadPlan(pipeline: pipeline, references: references, target: target, replace: force, display: display)

            // A request to end (Ctrl-C, SIGTERM, SIGHUP, …) cancels the downloads, whose temporary files go with them.
            let work = Task { await Self.download(references, plan: plan, display: display, jobs: jobs) }
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
            guard let first = failures.first else { return }
            if failures.count < references.count { throw ExitCode(ExitStatus.partialFailure.rawValue) }
            throw ExitCode((first as? any UserFacingError)?.exitStatus.rawValue ?? 1)
        }

        /// Downloads `references`, `jobs` at a time, printing each path or error as it finishes.
        ///
        /// - Returns: the failures; none are printed once the downloads are cancelled.
        private static func download(
            _ references: [ImageReference], plan: DownloadPlan, display: ProgressDisplay, jobs: Int
        ) async -> [any Error] {
            var failures: [any Error] = []
            await withTaskGroup(of: (Int, Result<DownloadPlan.Saved, any Error>).self) { group in
                var next = 0
                func startNext() {
                    guard next < references.count, !Task.isCancelled else { return }
                    let index = next
                    next += 1
                    group.addTask { (index, await plan.download(references[index])) }
                }
                for _ in 0..<min(jobs, references.count) { startNext() }
                while let (index, result) = await group.next() {
                    display.clear()
                    switch result {
                    case .success(.written(let path)), .success(.upToDate(let path)):
                        StandardOutput.write(path.path + "\n")
                    case .success(.printed):
                        break
                    case .failure(let error):
                        failures.append(error)
                        guard !Task.isCancelled else { continue }
                        let message = (error as? any UserFacingError)?.message ?? String(describing: error)
                        StandardError.print(
                            "imgview: \(references.count > 1 ? "\(references[index].image?.name ?? "image"): " : "")\(message)")
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
