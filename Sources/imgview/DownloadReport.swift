import ImgviewFetching
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What became of one item of `get`, as `--json` prints it: one object per line, every key always
/// there (null when unknown), strings sanitised as every JSON imgview writes.
struct DownloadReport {
    let item: DownloadItem
    let result: Result<DownloadPlan.Download, any Error>
    let elapsed: Duration

    /// `downloaded`, `resumed`, `from-cache`, `up-to-date` or `failed`.
    var status: String {
        switch result {
        case .failure: "failed"
        case .success(let download):
            if case .upToDate = download.saved {
                "up-to-date"
            } else if download.response.resumedFrom != nil {
                "resumed"
            } else {
                download.response.source == .network ? "downloaded" : "from-cache"
            }
        }
    }

    func jsonLine() -> String {
        let download = try? result.get()
        let response = download?.response
        let error = result.failure
        let reference = try? item.reference.get()
        var path: String?
        switch download?.saved {
        case .written(let url), .upToDate(let url): path = url.path
        case .printed, nil: path = nil
        }
        // What the server answered, as far as the response tells: a body, its continuation, or a 304.
        let httpStatus: Int? =
            switch response?.source {
            case .network: response?.resumedFrom != nil ? 206 : 200
            case .revalidated: 304
            default: nil
            }
        let exitCode = error.map { ($0 as? any UserFacingError)?.exitStatus.rawValue ?? 1 } ?? 0
        let message = error.map { ($0 as? any UserFacingError)?.message ?? String(describing: $0) }
        let fields: [(String, String)] = [
            ("input", JSONText.string(TerminalText.sanitized(item.input))),
            ("line", item.line.map { String($0.number) } ?? "null"),
            ("url", JSONText.string(reference.map { TerminalText.sanitized($0.url.absoluteString) })),
            ("final_url", JSONText.string(response.map { TerminalText.sanitized($0.entry.finalURL.absoluteString) })),
            ("path", JSONText.string(path.map(TerminalText.sanitized))),
            ("status", JSONText.string(status)),
            ("http_status", httpStatus.map(String.init) ?? "null"),
            ("bytes", response.map { String($0.entry.byteCount) } ?? "null"),
            ("sha256", JSONText.string(response?.entry.sha256.isEmpty == false ? response?.entry.sha256 : nil)),
            ("content_type", JSONText.string(response?.entry.contentType.map(TerminalText.sanitized))),
            ("source", JSONText.string(response?.source.rawValue)),
            ("resumed_from", response?.resumedFrom.map(String.init) ?? "null"),
            ("elapsed_ms", String(Int(elapsed / .milliseconds(1)))),
            ("error", JSONText.string(message.map(TerminalText.sanitized))),
            ("exit_code", String(exitCode)),
        ]
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
