import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewBrowser
@testable import ImgviewFetching
@testable import ImgviewImaging
@testable import ImgviewPipeline
@testable import ImgviewSupport

/// A view that remembers every state the presenter showed it.
@MainActor
final class SpyBrowserView: BrowserView {
    private(set) var states: [BrowserState] = []
    /// What the presenter wrote to the terminal beside its frames (OSC 52), in order.
    private(set) var written: [[UInt8]] = []

    var last: BrowserState? { states.last }

    func display(_ state: BrowserState) {
        states.append(state)
    }

    func write(_ sequence: [UInt8]) {
        written.append(sequence)
    }

    /// The URL of the image the last state shows loaded, if any.
    var shownURL: URL? {
        guard case .loaded(let shown)? = last?.phase else { return nil }
        return shown.facts.url
    }

    var isShowingPreview: Bool {
        guard case .loaded(let shown)? = last?.phase else { return false }
        return shown.preview != nil
    }
}

/// A loader whose requests wait until the test releases them, in any order.
final class HeldImageLoader: ImageFetching {
    struct Call: Sendable {
        let id: Int
        let request: ImageRequest
    }

    private struct State {
        var nextID = 0
        var calls: [Call] = []
        var waiting: [Int: CheckedContinuation<ImageResponse, any Error>] = [:]
        var progress: [Int: TransferProgress] = [:]
        var cancelled: [URL] = []
        /// Outcomes handed out before their request arrived.
        var early: [Int: Result<ImageResponse, any Error>] = [:]
        var discarded: [URL] = []
        var bodies: [Int: BodyTap] = [:]
        /// How much of its body each waiting request has been fed.
        var fed: [Int: Int64] = [:]
        /// Tests waiting for a request for a URL to arrive.
        var watchers: [(url: URL, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Locked(State())

    /// Every request made, in order.
    var calls: [Call] { state.withLock { $0.calls } }
    /// Requests still waiting for a release.
    var pending: [Call] { state.withLock { state in state.calls.filter { state.waiting[$0.id] != nil } } }
    var cancelledURLs: [URL] { state.withLock { $0.cancelled } }
    /// URLs whose cached bytes the pipeline threw away as not an image.
    var discardedURLs: [URL] { state.withLock { $0.discarded } }

    func discard(_ url: URL) {
        state.withLock { $0.discarded.append(url) }
    }

    /// Returns once a request for `url` is waiting for its release (at once if one is); records
    /// an issue if none comes within `timeout`.
    func waitForRequest(_ url: URL, timeout: Duration = .seconds(10), sourceLocation: SourceLocation = #_sourceLocation) async {
        let arrived = Locked(false)
        let timer = Task {
            try? await Task.sleep(for: timeout)
            let late = state.withLock { state in
                let late = state.watchers.filter { $0.url == url }.map(\.continuation)
                state.watchers.removeAll { $0.url == url }
                return late
            }
            for continuation in late { continuation.resume() }
        }
        await withCheckedContinuation { continuation in
            let waiting = state.withLock { state -> Bool in
                if state.calls.contains(where: { $0.request.url == url && state.waiting[$0.id] != nil }) { return true }
                state.watchers.append((url, continuation))
                return false
            }
            if waiting { continuation.resume() }
        }
        timer.cancel()
        arrived.withLock { $0 = isWaiting(for: url) }
        if !arrived.withLock({ $0 }) { Issue.record("no request for \(url) within \(timeout)", sourceLocation: sourceLocation) }
    }

    func calls(for url: URL) -> [Call] { calls.filter { $0.request.url == url } }

    func fetch(_ request: ImageRequest, progress: @escaping TransferProgress, body: BodyTap?) async throws -> ImageResponse {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.calls.append(Call(id: state.nextID, request: request))
            state.progress[state.nextID] = progress
            if let body { state.bodies[state.nextID] = body }
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let early: Result<ImageResponse, any Error>? = state.withLock { state in
                    if let early = state.early.removeValue(forKey: id) { return early }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiting[id] = continuation
                    return nil
                }
                if let early {
                    continuation.resume(with: early)
                    return
                }
                let watchers = state.withLock { state in
                    let ready = state.watchers.filter { $0.url == request.url }.map(\.continuation)
                    state.watchers.removeAll { $0.url == request.url }
                    return ready
                }
                for watcher in watchers { watcher.resume() }
            }
        } onCancel: {
            let continuation = state.withLock { state in
                state.cancelled.append(request.url)
                return state.waiting.removeValue(forKey: id)
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Answers the oldest waiting request for `url` with `bytes` (or an error).
    func release(_ url: URL, with outcome: Result<Data, any Error>, source: ImageResponse.Source = .network, fetchedAt: Date = Date()) {
        let continuation: CheckedContinuation<ImageResponse, any Error>? = state.withLock { state in
            guard let call = state.calls.first(where: { $0.request.url == url && state.waiting[$0.id] != nil }) else { return nil }
            return state.waiting.removeValue(forKey: call.id)
        }
        guard let continuation else {
            Issue.record("no request for \(url) is waiting")
            return
        }
        continuation.resume(with: outcome.map { makeResponse(url: url, bytes: $0, source: source, fetchedAt: fetchedAt) })
    }

    /// Feeds the waiting request for `url` the next part of its body, as a transfer would, with
    /// the progress it makes.
    func feed(_ url: URL, _ bytes: Data, expected: Int64? = nil) {
        let (tap, offset, handler) = state.withLock { state -> (BodyTap?, Int64, TransferProgress?) in
            guard let call = state.calls.last(where: { $0.request.url == url && state.waiting[$0.id] != nil }) else {
                return (nil, 0, nil)
            }
            let offset = state.fed[call.id] ?? 0
            state.fed[call.id] = offset + Int64(bytes.count)
            return (state.bodies[call.id], offset, state.progress[call.id])
        }
        bytes.withUnsafeBytes { tap?(offset, $0) }
        handler?(offset + Int64(bytes.count), expected)
    }

    /// Reports progress on the waiting request for `url`.
    func report(_ url: URL, received: Int64, expected: Int64?) {
        let handler = state.withLock { state in
            state.calls.last(where: { $0.request.url == url && state.waiting[$0.id] != nil }).flatMap { state.progress[$0.id] }
        }
        handler?(received, expected)
    }

    func isWaiting(for url: URL) -> Bool { pending.contains { $0.request.url == url } }
}

/// A response as the fetcher would deliver it, fresh for an hour.
func makeResponse(url: URL, bytes: Data, source: ImageResponse.Source, fetchedAt: Date = Date()) -> ImageResponse {
    let entry = CacheEntry(
        url: url, finalURL: url, contentType: "image/png", format: .png, byteCount: Int64(bytes.count),
        sha256: sha256Hex(bytes), etag: nil, lastModified: nil, fetchedAt: fetchedAt, lastAccessedAt: fetchedAt,
        freshUntil: fetchedAt.addingTimeInterval(3600))
    return ImageResponse(
        request: ImageRequest(url: url), entry: entry, source: source, body: .data(bytes), elapsed: .milliseconds(12), isCached: true)
}

/// Decodes "images" made by `stubImage`: a width, a height and a grey level, or fails on request.
struct StubDecoder: ImageDecoding {
    /// Pictures of a stub image still arriving: its size from the start of the bytes, its grey
    /// level the number of bytes so far over 16, a new one each time more bytes came.
    final class Progressive: ProgressiveImageDecoder {
        private var shown = 0

        func update(with prefix: Data) throws(ImageDecodingError) -> DecodedImage? {
            guard prefix.count > shown, let end = prefix.firstIndex(of: 0) ?? (prefix.count > 13 ? prefix.endIndex : nil) else {
                return nil
            }
            let header = try StubDecoder().inspect(Data(prefix[..<end]))
            shown = prefix.count
            let grey = UInt8(min(255, prefix.count / 16))
            return DecodedImage(
                header: header,
                pixels: PixelBuffer(width: header.storedWidth, height: header.storedHeight, filledWith: (grey, grey, grey, 255)))
        }
    }

    func makeProgressiveDecoder(for format: ImageFormat, sizing: @escaping ProgressiveSizing) -> (any ProgressiveImageDecoder)? {
        Progressive()
    }

    func inspect(_ bytes: Data, probe: ImageProbe) throws(ImageDecodingError) -> ImageHeader {
        let (width, height, _) = try Self.parse(bytes)
        return ImageHeader(format: .png, storedWidth: width, storedHeight: height, orientation: .up)
    }

    func decode(_ bytes: Data, header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        let (width, height, grey) = try Self.parse(bytes)
        return DecodedImage(
            header: try inspect(bytes), pixels: PixelBuffer(width: width, height: height, filledWith: (grey, grey, grey, 255)))
    }

    private static func parse(_ bytes: Data) throws(ImageDecodingError) -> (Int, Int, UInt8) {
        guard bytes.count >= 13, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) else { throw .notAnImage }
        let fields = String(decoding: bytes.dropFirst(8), as: UTF8.self).split(separator: ",")
        guard fields.count == 3, let width = Int(fields[0]), let height = Int(fields[1]), let grey = UInt8(fields[2]) else {
            throw .corrupt(.png, detail: "stub image is malformed")
        }
        return (width, height, grey)
    }
}

/// Bytes the stub decoder reads as a `width × height` image of one grey level.
func stubImage(width: Int = 64, height: Int = 48, grey: UInt8 = 128) -> Data {
    Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data("\(width),\(height),\(grey)".utf8)
}

/// Pages of a catalog served from memory.
struct MemoryCatalogPages: CatalogPaging {
    let pages: [URL: Catalog]

    func loadNextPage(of catalog: Catalog) async throws(CatalogError) -> Catalog {
        guard let next = catalog.next, let page = pages[next] else {
            throw CatalogError(origin: catalog.origin, problem: .fetchFailed("no such page"))
        }
        return try catalog.appending(page)
    }
}
