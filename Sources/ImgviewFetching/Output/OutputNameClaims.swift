import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The file names one `get` run has given out, so that two URLs ending in the same name are both saved.
///
/// The first URL keeps the name, the next gets `name-1`, then `name-2`…, as the browser's `d` does;
/// the same URL asked for twice keeps its one name. Names are claimed in the order the images
/// were given, before any download finishes, so running the same command again picks the same names.
public final class OutputNameClaims: Sendable {
    private let claims = Locked<[String: URL]>([:])

    public init() {}

    /// The name `url` is saved under: `name`, or the first numbered variant no other URL holds.
    public func claim(_ name: String, for url: URL) -> String {
        claims.withLock { claims in
            for attempt in 0... {
                let candidate = OutputNaming.numbered(name, attempt)
                switch claims[candidate] {
                case nil:
                    claims[candidate] = url
                    return candidate
                case url:
                    return candidate
                default:
                    continue
                }
            }
            fatalError("unreachable")
        }
    }
}
