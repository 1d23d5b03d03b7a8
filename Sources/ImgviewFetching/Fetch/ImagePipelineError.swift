import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Why the pipeline could not deliver an image; each case carries what the one-line message needs.
public enum ImagePipelineError: Error, Sendable, Equatable {
    /// The server said 404 or 410.
    case notFound(URL, status: Int)
    /// The server answered with another error status.
    case httpStatus(URL, status: Int)
    /// The server answered with a status that does not fit the request: see `StatusMisuse`.
    case misusedStatus(URL, status: Int, StatusMisuse)
    /// A failed status whose Retry-After asks for a longer wait than imgview makes (`retryAfter` as sent).
    case waitTooLong(URL, status: Int, retryAfter: String)
    /// The transfer failed below HTTP: refused, host not found, timed out, connection lost, TLS…
    case transport(URL, TransportError)
    /// The request, retries included, took longer than the overall limit.
    case timedOut(URL, after: String)
    /// The body ended before the length the server declared, or (when it declared none) before
    /// the image's own structure ends.
    case truncated(URL, received: Int64, expected: Int64?)
    /// The body is not a JPEG, PNG, GIF, WebP or BMP.
    case notAnImage(URL, contentType: String?)
    /// The body was larger than the download limit.
    case tooLarge(URL, limit: Int64)
    /// `--offline`, and the URL is not cached.
    case offlineMiss(URL)
    case fileNotFound(URL)
    case fileUnreadable(URL, reason: String)
    /// The file was replaced, changed or cut short between being opened and being decoded.
    case fileChanged(URL)
    case unsupportedURL(URL)
    /// The cache folder failed under us.
    case cache(String)
    /// This machine could not write what was downloaded: disk full, over quota, read-only,
    /// permission denied. Retrying cannot help, so it is never retried.
    case storage(URL, FileSystemError)
    /// Nobody waits for the result any more.
    case cancelled
}

extension ImagePipelineError: UserFacingError {
    public var message: String {
        switch self {
        case .notFound(let url, let status): "\(Self.show(url)): HTTP \(status) (not found)"
        case .httpStatus(let url, let status): "\(Self.show(url)): HTTP \(status) \(Self.phrase(status))"
        case .misusedStatus(let url, let status, let misuse): "\(Self.show(url)): HTTP \(status) \(misuse.phrase)"
        case .waitTooLong(let url, let status, let retryAfter):
            "\(Self.show(url)): HTTP \(status) \(Self.phrase(status)), and the server asks to wait "
                + "\(Self.waitText(retryAfter)) before trying again: longer than imgview waits"
        case .transport(let url, let failure): "\(Self.show(url)): \(failure.reason)"
        case .timedOut(let url, let after): "\(Self.show(url)): timed out (\(after))"
        case .truncated(let url, let received, let expected?):
            "\(Self.show(url)): transfer cut short after \(received) of \(expected) bytes"
        case .truncated(let url, let received, nil):
            "\(Self.show(url)): transfer cut short after \(received) bytes (the connection closed before the image's end)"
        case .notAnImage(let url, let contentType):
            "\(Self.show(url)): not an image\(contentType.map { " (\(TerminalText.sanitized($0)))" } ?? "")"
        case .tooLarge(let url, let limit): "\(Self.show(url)): larger than the download limit of \(ByteCount.format(limit))"
        case .offlineMiss(let url): "\(Self.show(url)): not in the cache, and --offline forbids the network"
        case .fileNotFound(let url): "\(TerminalText.sanitized(url.displayPath)): no such file"
        case .fileUnreadable(let url, let reason): "\(TerminalText.sanitized(url.displayPath)): \(reason)"
        case .fileChanged(let url): "\(TerminalText.sanitized(url.displayPath)): changed while it was read"
        case .unsupportedURL(let url): "\(Self.show(url)): unsupported URL"
        case .cache(let reason): "cache: \(TerminalText.sanitized(reason))"
        case .storage(let url, let failure): "\(Self.show(url)): \(failure.storageReason)"
        case .cancelled: "cancelled"
        }
    }

    public var exitStatus: ExitStatus {
        switch self {
        case .notFound, .fileNotFound: .notFound
        case .httpStatus, .misusedStatus, .waitTooLong: .httpStatus
        case .transport, .timedOut, .truncated, .unsupportedURL: .network
        case .notAnImage, .tooLarge: .badImage
        case .offlineMiss: .offlineMiss
        case .fileUnreadable, .fileChanged: .notFound
        case .cache: .cache
        case .storage: .storage
        case .cancelled: .interrupted
        }
    }

    /// Whether the same request could succeed if made again in a moment: what the retry policy retries.
    ///
    /// The overall timeout is not: it already includes the retries.
    public var isTransient: Bool {
        switch self {
        case .transport(_, let failure): failure.canSucceedOnRetry
        case .truncated: true
        case .httpStatus(_, let status): status == 408 || status == 429 || (500...599).contains(status)
        default: false
        }
    }

    /// A URL as the user knows it: a local file by its path.
    private static func show(_ url: URL) -> String {
        TerminalText.sanitized(url.location)
    }

    /// A Retry-After value in words: seconds, or the date it named.
    private static func waitText(_ retryAfter: String) -> String {
        let trimmed = TerminalText.sanitized(retryAfter.trimmingSpaces())
        let shown = trimmed.count > 30 ? trimmed.prefix(30) + "…" : trimmed
        return trimmed.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) ? "\(shown) s" : "until \(shown)"
    }

    private static func phrase(_ status: Int) -> String {
        switch status {
        case 300: "(multiple choices)"
        case 304: "(not modified)"
        case 400: "(bad request)"
        case 401: "(unauthorized)"
        case 403: "(forbidden)"
        case 408: "(request timeout)"
        case 429: "(too many requests)"
        case 500: "(internal server error)"
        case 502: "(bad gateway)"
        case 503: "(service unavailable)"
        case 504: "(gateway timeout)"
        default:
            switch status {
            case 500...: "(server error)"
            case 400..<500: "(client error)"
            case 300..<400: "(redirect)"
            default: "(unexpected)"
            }
        }
    }
}

/// How a server's status does not fit what was asked: each names what the server did.
public enum StatusMisuse: Sendable, Equatable {
    /// 206 Partial Content to a request that asked for the whole body (no Range).
    case partialContentUnasked
    /// 304 Not Modified to a request that was not conditional: nothing to keep using.
    case notModifiedUnasked
    /// A redirect status with no Location to follow.
    case redirectWithoutLocation

    var phrase: String {
        switch self {
        case .partialContentUnasked: "(partial content) to a request for the whole image"
        case .notModifiedUnasked: "(not modified) to a request that was not conditional"
        case .redirectWithoutLocation: "(a redirect with no Location to follow)"
        }
    }
}
