import HTTPTypes

/// Asking a server whether a stored response is still good, and reading its answer (RFC 9111 §4.3).
public enum Revalidation {
    /// The conditional fields that ask whether `entry` is still current: If-None-Match with its
    /// ETag, If-Modified-Since with its Last-Modified.
    public static func conditions(for entry: CacheEntry) -> HTTPFields {
        var fields = HTTPFields()
        if let etag = entry.etag { fields[.ifNoneMatch] = etag }
        if let modified = entry.lastModified { fields[.ifModifiedSince] = modified }
        return fields
    }

    /// Whether a 304 with `fields` is about `entry`, so that it may renew it (RFC 9111 §4.3.4).
    ///
    /// A strong ETag in the 304 must be the stored one; a weak one must match it weakly; with no
    /// ETag, a Last-Modified must be the stored one. A 304 that names another representation says
    /// nothing about the stored one, which must then not be renewed: the server has changed the
    /// image (or is confused), and the body is fetched whole.
    public static func notModified(_ fields: HTTPFields, selects entry: CacheEntry) -> Bool {
        if let tag = fields[.eTag].map(EntityTag.init) {
            guard let stored = entry.etag.map(EntityTag.init) else { return false }
            return tag.isWeak ? tag.opaque == stored.opaque : !stored.isWeak && tag.opaque == stored.opaque
        }
        if let modified = fields[.lastModified]?.trimmed, let stored = entry.lastModified?.trimmed {
            return modified == stored
        }
        return true
    }

    /// An entity tag: `"xyz"` (strong) or `W/"xyz"` (weak).
    private struct EntityTag {
        let isWeak: Bool
        let opaque: Substring

        init(_ text: String) {
            let trimmed = Substring(text.trimmed)
            isWeak = trimmed.hasPrefix("W/")
            opaque = isWeak ? trimmed.dropFirst(2) : trimmed
        }
    }
}

extension String {
    fileprivate var trimmed: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
