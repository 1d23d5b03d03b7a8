import ImgviewFetching
import ImgviewPipeline
import ImgviewSupport
import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// Fetches one image through the pipeline and saves it where `get` was told to.
struct DownloadPlan: Sendable {
    /// Where the downloads go.
    enum Target: Sendable {
        /// Each under its own name in the folder (`-O DIR`, or the current folder).
        case folder(URL)
        /// The single image as this file (`-o FILE`).
        case file(URL)
        /// The single image's bytes to standard output (`-o -`).
        case standardOutput
    }

    /// What became of one image.
    enum Saved: Sendable {
        case written(URL)
        /// The file was already there with exactly these bytes, and was left alone.
        case upToDate(URL)
        case printed
    }

    /// An image saved, with the response it came in.
    struct Download: Sendable {
        let saved: Saved
        let response: ImageResponse
    }

    /// What else goes onto each file written.
    struct Marking: Sendable {
        /// `-R`: the file's modification time is the server's Last-Modified.
        var remoteTime = false
        /// The Referer sent (`--referer`), recorded as `user.xdg.referrer.url`.
        var referrer: String?
    }

    let pipeline: ImagePipeline
    let target: Target
    let replace: Bool
    let display: ProgressDisplay
    let names: OutputNameClaims
    /// The largest body the cache keeps: a larger one is not given to an output draft, its own
    /// file becomes the output.
    let cacheMaxEntry: Int64
    let marking: Marking

    /// A plan for `references`: names that collide within the run are numbered, in the order given.
    init(
        pipeline: ImagePipeline, references: [ImageReference], target: Target, replace: Bool, display: ProgressDisplay,
        cacheMaxEntry: Int64 = DiskCache.defaultMaxEntry, marking: Marking = Marking()
    ) {
        self.pipeline = pipeline
        self.target = target
        self.replace = replace
        self.display = display
        self.cacheMaxEntry = cacheMaxEntry
        self.marking = marking
        names = OutputNameClaims()
        for reference in references {
            if let name = OutputNaming.fileName(for: reference.url) { _ = names.claim(name, for: reference.url) }
        }
    }

    func download(_ reference: ImageReference) async -> Result<Download, any Error> {
        do {
            var destination = destination(for: reference)
            // Refuse before downloading what could never be replaced: a device node, a FIFO, a folder.
            if let known = destination { try Self.refuseSpecialFile(at: known) }
            let label = reference.image?.name ?? OutputNaming.fileName(for: reference.url) ?? reference.url.absoluteString
            // The output fills while the body arrives, so that saving does not copy it all again.
            let draft = outputFolder.flatMap(OutputDraft.open(in:))
            defer { draft?.close() }
            let cacheMaxEntry = cacheMaxEntry
            let response = try await pipeline.bytes(
                for: ImageRequest(url: reference.url),
                progress: { received, expected in
                    // Told before the body's first byte: a body the cache will not keep is written once, into its own file.
                    if let expected, expected > cacheMaxEntry { draft?.decline() }
                    display.update(label, received: received, expected: expected)
                },
                body: draft?.bodyTap)
            display.done(label)
            guard case .folder(let folder) = target, destination == nil else {
                return .success(Download(saved: try save(response, to: destination, draft: draft), response: response))
            }
            let fallback = OutputNaming.fallbackName(catalogName: reference.image?.name, format: response.entry.format)
            destination = folder.appendingPathComponent(names.claim(fallback, for: reference.url))
            return .success(Download(saved: try save(response, to: destination, draft: draft), response: response))
        } catch {
            return .failure(error)
        }
    }

    /// The folder every output goes to; nil for standard output.
    private var outputFolder: URL? {
        switch target {
        case .folder(let folder): folder
        case .file(let file): file.deletingLastPathComponent()
        case .standardOutput: nil
        }
    }

    /// Where `reference` goes when its name is known before the download; nil when it is not.
    private func destination(for reference: ImageReference) -> URL? {
        switch target {
        case .file(let file): file
        case .standardOutput: nil
        case .folder(let folder):
            OutputNaming.fileName(for: reference.url).map { folder.appendingPathComponent(names.claim($0, for: reference.url)) }
        }
    }

    private func save(_ response: ImageResponse, to destination: URL?, draft: OutputDraft?) throws -> Saved {
        guard let destination else {
            try response.withSource { source in
                do {
                    try OutputFile.copy(source, to: FileDescriptor.standardOutput)
                } catch Errno.brokenPipe {
                    StandardOutput.endByBrokenPipe()
                } catch {
                    // A full disk under a redirection, say: this machine's write failed.
                    throw OutputError.cannotWrite("standard output: cannot write: \(String(cString: strerror(Errno.code(of: error))))")
                }
            }
            return .printed
        }
        do {
            switch try response.write(to: destination, replace: replace, draft: draft, attributes: attributes(of: response)) {
            case .written: return .written(destination)
            case .upToDate: return .upToDate(destination)
            }
        } catch let error as FileSystemError {
            throw error.code == EEXIST ? OutputError.exists(destination.path) : OutputError.cannotWrite(error.description)
        }
    }

    /// The origin (and with `-R` the time) a file written from `response` carries.
    private func attributes(of response: ImageResponse) -> OutputAttributes {
        guard response.source != .file else { return OutputAttributes() }
        return OutputAttributes(
            originURL: OutputAttributes.origin(of: response.entry.finalURL), referrerURL: marking.referrer,
            mimeType: response.entry.contentType,
            modified: marking.remoteTime ? response.entry.lastModified.flatMap(HTTPDate.date(from:)) : nil)
    }

    private static func refuseSpecialFile(at destination: URL) throws {
        var status = stat()
        guard lstat(destination.path, &status) == 0 else { return }
        let type = status.st_mode & S_IFMT
        if type != S_IFREG, type != S_IFLNK { throw OutputFileError.notARegularFile(destination.path) }
    }
}

/// Why a download could not be saved.
enum OutputError: UserFacingError {
    case exists(String)
    case notAFolder(String)
    case cannotWrite(String)

    var message: String {
        switch self {
        case .exists(let path): "\(TerminalText.sanitized(path)): file exists (use --force to overwrite)"
        case .notAFolder(let path): "\(TerminalText.sanitized(path)): no such folder"
        case .cannotWrite(let reason): reason
        }
    }

    /// A write that failed is this machine's failure, as every local write is (exit 11); only an
    /// output refused before writing is the output's.
    var exitStatus: ExitStatus {
        switch self {
        case .exists, .notAFolder: .output
        case .cannotWrite: .storage
        }
    }
}
