import Foundation
import ImgviewSupport

/// What a request's `Range` and `If-Range` ask of a resource (RFC 9110 §14.2, §13.1.5), for the
/// one form clients send to resume: `bytes=N-`.
enum RangeRequest: Equatable {
    /// No range, one the server does not serve, or an `If-Range` naming another version: the whole body.
    case whole
    /// The body from this byte on.
    case from(Int)
    /// The range starts at or past the end: 416.
    case unsatisfiable

    static func evaluate(_ headers: [String: String], resource: ServedResource, fault: Fault, length: Int) -> RangeRequest {
        guard let range = headers["range"]?.trimmingCharacters(in: .whitespaces),
            range.hasPrefix("bytes="), range.hasSuffix("-"),
            let first = Int(range.dropFirst(6).dropLast()), first >= 0
        else { return .whole }
        if let condition = headers["if-range"], !fault.ignoresIfRange, !matches(condition, resource) {
            return .whole
        }
        return first >= length ? .unsatisfiable : .from(first)
    }

    /// If-Range compares strongly: an entity tag equal and not weak, or the exact Last-Modified date.
    private static func matches(_ condition: String, _ resource: ServedResource) -> Bool {
        let condition = condition.trimmingCharacters(in: .whitespaces)
        if condition.hasPrefix("\"") {
            guard let etag = resource.etag, !etag.hasPrefix("W/") else { return false }
            return condition == etag
        }
        guard let modified = resource.lastModified else { return false }
        return condition == HTTPDate.string(from: modified)
    }
}
