import ImgviewImaging
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

/// An image's bytes as the service delivers them, with where they came from.
public struct ImageResponse: Sendable {
    /// Where the bytes were found.
    public enum Source: String, Sendable, Codable {
        case network
        case memory
        case disk
        /// On disk, confirmed unchanged by the server with a 304.
        case revalidated
        /// A local file (file:// URL).
        case file
        /// Read from standard input (`show -`).
        case standardInput = "stdin"

        public var displayName: String {
            switch self {
            case .network: "network"
            case .memory: "memory cache"
            case .disk: "disk cache"
            case .revalidated: "disk cache, revalidated (304)"
            case .file: "local file"
            case .standardInput: "standard input"
            }
        }
    }

    /// The bytes: in memory, or in a file too large to hold (a cache blob or a temporary file).
    public enum Body: Sendable {
        case data(Data)
        /// `owner` keeps a temporary file alive while the response is.
        case file(URL, owner: TemporaryFile?)
    }

    public let request: ImageRequest
    public let entry: CacheEntry
    public let source: Source
    public let body: Body
    /// How long the fetch took to deliver, from the request to the last byte.
    public let elapsed: Duration
    /// Whether the disk cache holds the bytes now.
    public let isCached: Bool
    /// What the bytes are: the entry's probe, made when they arrived (or, for an entry older than
    /// the probe, read from the bytes now).
    public let probe: ImageProbe
    /// How many of the bytes an earlier, interrupted transfer had brought: this one asked only for the rest.
    public package(set) var resumedFrom: Int64?
    /// A local file's stamp as it was opened to be read: what the bytes are known by when the
    /// entry has no hash (`ImageRequest.needsDigest`).
    public package(set) var fileStamp: FileStamp?

    /// - Parameter probe: the probe as it was made, when it was made just now (the entry keeps
    ///   what lasts of it, not how complete the bytes were).
    public init(
        request: ImageRequest, entry: CacheEntry, source: Source, body: Body, elapsed: Duration, isCached: Bool,
        probe: ImageProbe? = nil
    ) {
        self.request = request
        self.entry = entry
        self.source = source
        self.body = body
        self.elapsed = elapsed
        self.isCached = isCached
        self.probe = probe ?? entry.probe ?? body.probe(through: .header) ?? ImageProbe(format: entry.format)
    }

    /// The same response, delivered in `elapsed`.
    public func withElapsed(_ elapsed: Duration) -> ImageResponse {
        var response = ImageResponse(
            request: request, entry: entry, source: source, body: body, elapsed: elapsed, isCached: isCached, probe: probe)
        response.resumedFrom = resumedFrom
        response.fileStamp = fileStamp
        return response
    }

    /// The bytes, read from the file if they are not in memory.
    public func data() throws -> Data {
        switch body {
        case .data(let data): data
        case .file(let url, _): try Data(contentsOf: url)
        }
    }

    /// Runs `body` (a decoder) on the bytes: in memory, or a file's mapped (no copy, see
    /// `MappedFile`), with the mapping for the decoder to let go of what it has read.
    ///
    /// A file is read as it was when its bytes were hashed and probed, or not at all: one that
    /// was replaced or changed since, or cut short while `body` read it, throws `fileChanged`
    /// (a cached body that changed, `cache`) instead of `body`'s result or error.
    public func withDecoderBytes<T>(_ body: (Data, MappedFile?) throws -> T) throws -> T {
        switch self.body {
        case .data(let data):
            return try body(data, nil)
        case .file(let url, _):
            let mapping: MappedFile
            do {
                mapping = try MappedFile(url)
            } catch {
                throw unreadable(url, error.rawValue)
            }
            if let fileStamp, mapping.stamp != fileStamp { throw changed(url) }
            let result: Result<T, any Error> = Result { try body(mapping.data, mapping) }
            guard mapping.isIntact else { throw changed(url) }
            return try result.get()
        }
    }

    /// Why the body's file at `file` could not be opened: a local file as `LocalFileReader` says it.
    private func unreadable(_ file: URL, _ code: Int32) -> any Error {
        source == .file
            ? LocalFileReader.error(request.url, code)
            : FileSystemError(operation: "read", path: file.path, errno: code)
    }

    /// The body's file is no longer what was read (`fileStamp` is only ever a local file's).
    private func changed(_ file: URL) -> ImagePipelineError {
        source == .file
            ? .fileChanged(request.url)
            : .cache("\(file.path) changed while it was read")
    }

    /// Writes the bytes to `destination`, a file of its own that appears whole or not at all; see `OutputFile`.
    ///
    /// Returns `.upToDate`, writing nothing, when the destination already holds exactly these bytes.
    /// A `draft` that was given the body as it arrived becomes the file instead of a copy; only a
    /// body that came from the network can have been given to it (a 304 answers from the cache).
    /// A body the cache did not keep is in a file of the download's own, which becomes the output
    /// where it can (one write in all: see `OutputFile.publish`).
    public func write(
        to destination: URL, replace: Bool, draft: OutputDraft? = nil, attributes: OutputAttributes = OutputAttributes()
    ) throws -> OutputFile.Outcome {
        let draft = source == .network ? draft : nil
        var ownFile: TemporaryFile?
        if source == .network, !isCached, case .file(_, let owner) = body { ownFile = owner }
        return try withSource { source in
            try OutputFile.publish(
                source, byteCount: entry.byteCount, sha256: entry.sha256, to: destination, replace: replace, draft: draft,
                ownFile: ownFile, attributes: attributes)
        }
    }

    /// `body` given the bytes as an output source: the data, or the file opened for reading.
    public func withSource<T>(_ body: (OutputFile.Source) throws -> T) throws -> T {
        switch self.body {
        case .data(let data):
            return try body(.data(data))
        case .file(let url, _):
            // A cache blob is never a link; a local file the user named may be one, and its name
            // may not be UTF-8.
            let flags = O_RDONLY | O_CLOEXEC | (source == .file ? 0 : O_NOFOLLOW)
            let descriptor = url.withFilePath { open($0, flags) }
            guard descriptor >= 0 else { throw unreadable(url, errno) }
            let file = FileDescriptor(rawValue: descriptor)
            defer { try? file.close() }
            // What is copied is what was hashed, or nothing: the file may have been replaced since.
            var status = stat()
            if let fileStamp, fstat(descriptor, &status) != 0 || FileStamp(status: status) != fileStamp { throw changed(url) }
            return try body(.file(file))
        }
    }
}

extension ImageResponse.Body {
    /// The probe of the bytes, nil when they are not an image.
    package func probe(through depth: ImageProbe.Depth) -> ImageProbe? {
        switch self {
        case .data(let data): ImageProbe.read(data, through: depth)
        case .file(_, owner: .some(let file)):
            FileBytes(descriptor: file.fileDescriptor, windowSize: ImageProbe.fileWindowSize).flatMap {
                ImageProbe.read($0, through: depth)
            }
        case .file(let url, owner: nil): ImageProbe.read(fileAt: url, through: depth)
        }
    }

    /// The camera fields of the bytes' EXIF, wherever the format keeps it; of a file, only the
    /// parts the walk asks for are read.
    package var camera: ExifCamera? {
        switch self {
        case .data(let data): ExifCamera.read(DataBytes(data))
        case .file(_, owner: .some(let file)):
            FileBytes(descriptor: file.fileDescriptor, windowSize: 64 << 10).flatMap { ExifCamera.read($0) }
        case .file(let url, owner: nil): FileBytes(path: url.path, windowSize: 64 << 10).flatMap { ExifCamera.read($0) }
        }
    }
}
