import HTTPTypes
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads a web page and the images it shows: `get --page URL`.
///
/// The page is fetched with the command's loader, not through the image cache (pages change and
/// are not images), and parsed as its bytes arrive; at most `maxPageBytes` of it are read.
public struct PageReader: Sendable {
    /// Pages are read this far at most (the catalog's limit): enough for any gallery.
    public static let maxPageBytes = 16 << 20

    let loader: any DataLoading
    let parsing: any HTMLParsing

    public init(loader: any DataLoading, parsing: any HTMLParsing) {
        self.loader = loader
        self.parsing = parsing
    }

    /// What an answer was when only a page was wanted: its head said it is something else (an
    /// image, most likely); only the head came, the body was not read.
    public struct NotAPage: Error, Sendable {
        public let contentType: String?
    }

    /// The page at `url` and its images.
    ///
    /// - Parameter onlyHTML: stop at the head when it does not say HTML (`text/html`,
    ///   `application/xhtml+xml`), throwing `NotAPage`: the browser asks this of a URL whose name
    ///   does not say whether it is a page or an image.
    public func read(_ url: URL, onlyHTML: Bool = false) async throws -> WebPage {
        let sink = PageSink(limit: Self.maxPageBytes, onlyHTML: onlyHTML)
        let fields: HTTPFields = [
            .userAgent: "imgview/0.1", .accept: "text/html, application/xhtml+xml;q=0.9, */*;q=0.5",
        ]
        var head: ResponseHead
        do {
            head = try await loader.load(.get(url, fields: fields), into: sink)
        } catch is PageSink.Enough {
            // Past the limit: what came is the page.
            guard let received = sink.head else { throw PageError.unreadable(url, "no response") }
            head = received
        } catch let error as TransportError {
            throw ImagePipelineError.transport(url, error)
        }
        switch head.status {
        case 200..<300: break
        case 404, 410: throw ImagePipelineError.notFound(url, status: head.status)
        default: throw ImagePipelineError.httpStatus(url, status: head.status)
        }
        let scanner = PageScanner(pageURL: head.url)
        let parser = try parsing.parser(reportingTo: scanner)
        sink.body.withUnsafeBytes { parser.feed($0) }
        parser.finish()
        return WebPage(url: url, finalURL: head.url, title: scanner.title, images: scanner.images, isCut: scanner.isCut || sink.isCut)
    }
}

/// Gathers a page's bytes up to a limit, then stops the transfer.
final class PageSink: TransferSink, @unchecked Sendable {
    struct Enough: Error {}

    private let lock = ThreadLock()
    private let limit: Int
    private var data = Data()
    private var keeping = false
    private var cut = false
    private var received: ResponseHead?

    private let onlyHTML: Bool

    init(limit: Int, onlyHTML: Bool = false) {
        self.limit = limit
        self.onlyHTML = onlyHTML
    }

    /// Whether a Content-Type names an HTML document.
    static func isHTML(_ contentType: String?) -> Bool {
        guard let type = contentType?.split(separator: ";").first?.trimmingSpaces().lowercased() else { return false }
        return type == "text/html" || type == "application/xhtml+xml"
    }

    var body: Data { lock.withLock { data } }
    var isCut: Bool { lock.withLock { cut } }
    var head: ResponseHead? { lock.withLock { received } }

    func receive(_ head: ResponseHead) throws {
        lock.withLock {
            received = head
            keeping = (200..<300).contains(head.status)
        }
        if onlyHTML, (200..<300).contains(head.status), !Self.isHTML(head[.contentType]) {
            throw PageReader.NotAPage(contentType: head[.contentType])
        }
    }

    func receive(_ chunk: Data) throws {
        try lock.withLock {
            guard keeping else { return }
            let room = limit - data.count
            data.append(chunk.prefix(room))
            if chunk.count > room {
                cut = true
                throw Enough()
            }
        }
    }
}

/// Why a page's images could not be read.
public enum PageError: Error, Equatable, Sendable {
    /// libxml2 is missing or lacks what imgview calls.
    case parserUnavailable(String)
    case unreadable(URL, String)
    /// The page shows no image.
    case noImages(URL)
}

extension PageError: UserFacingError {
    public var message: String {
        switch self {
        case .parserUnavailable(let reason): "cannot read web pages: \(TerminalText.sanitized(reason))"
        case .unreadable(let url, let reason): "\(TerminalText.sanitized(url.absoluteString)): \(TerminalText.sanitized(reason))"
        case .noImages(let url): "no images in \(TerminalText.sanitized(url.absoluteString))"
        }
    }

    public var exitStatus: ExitStatus {
        switch self {
        case .parserUnavailable: .missingLibrary
        case .unreadable: .network
        case .noImages: .notFound
        }
    }
}
