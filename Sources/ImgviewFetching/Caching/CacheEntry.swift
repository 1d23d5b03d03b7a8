import ImgviewImaging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What the disk cache knows about one cached URL: its blob, validators and freshness.
public struct CacheEntry: Sendable, Codable, Equatable {
    /// The URL that was asked for (the key).
    public var url: URL
    /// The URL the body came from after redirects.
    public var finalURL: URL
    public var contentType: String?
    public var format: ImageFormat
    public var byteCount: Int64
    /// Lower-case hex SHA-256 of the body; also the blob's file name.
    public var sha256: String
    public var etag: String?
    public var lastModified: String?
    public var fetchedAt: Date
    public var lastAccessedAt: Date
    /// Until when the entry may be used without asking the server.
    public var freshUntil: Date
    /// How many times a 304 renewed the entry.
    public var revalidations: Int = 0
    /// The upright pixel size from the body's header; nil when it could not be read, and in
    /// entries written before imgview recorded it (the key is optional in the JSON).
    public var dimensions: ImageDimensions?
    /// What the rest of the body's probe said: how it is turned, whether it is animated (and its
    /// frames when the structure says them) and whether it carries a colour profile. Nil in entries
    /// written before imgview kept the probe; see `probe`.
    public var orientation: ImageOrientation?
    public var isAnimated: Bool?
    public var animation: AnimationSummary?
    public var hasColorProfile: Bool?

    public init(
        url: URL, finalURL: URL, contentType: String?, format: ImageFormat, byteCount: Int64, sha256: String,
        etag: String?, lastModified: String?, fetchedAt: Date, lastAccessedAt: Date, freshUntil: Date,
        dimensions: ImageDimensions? = nil, probe: ImageProbe? = nil
    ) {
        self.url = url
        self.finalURL = finalURL
        self.contentType = contentType
        self.format = format
        self.byteCount = byteCount
        self.sha256 = sha256
        self.etag = etag
        self.lastModified = lastModified
        self.fetchedAt = fetchedAt
        self.lastAccessedAt = lastAccessedAt
        self.freshUntil = freshUntil
        self.dimensions = dimensions
        if let probe { self.probe = probe }
    }

    /// The probe of the body, as it was made when the body arrived; nil for an entry written
    /// before imgview kept the probe, whose body must be probed again.
    ///
    /// Kept as plain fields, so the entry file stays flat for its fast reader (`CacheEntryParser`).
    public var probe: ImageProbe? {
        get {
            guard let orientation else { return nil }
            // A damaged or hand-written entry may say any size: one no picture has is no probe, and
            // the body is probed again (decoders size their buffers by the probe's).
            if let dimensions, dimensions.width <= 0 || dimensions.height <= 0 { return nil }
            let stored = dimensions.map { orientation.swapsAxes ? ImageDimensions(width: $0.height, height: $0.width) : $0 }
            return ImageProbe(
                format: format, storedSize: stored, orientation: orientation, isAnimated: isAnimated ?? false, animation: animation,
                hasColorProfile: hasColorProfile ?? false)
        }
        set {
            dimensions = newValue?.uprightSize
            orientation = newValue?.orientation
            isAnimated = newValue?.isAnimated
            animation = newValue?.animation
            hasColorProfile = newValue?.hasColorProfile
            if let newValue { format = newValue.format }
        }
    }

    public func isFresh(at now: Date) -> Bool { now < freshUntil }

    /// The one rule for using a remembered body without asking the server: it is fresh, or the
    /// command is offline (and so cannot ask). The disk cache and the pipeline's memory both apply it.
    public func isUsableWithoutAsking(offline: Bool, at now: Date) -> Bool { offline || isFresh(at: now) }

    /// Whether the server gave a validator, so a stale entry can be revalidated rather than refetched.
    public var canRevalidate: Bool { etag != nil || lastModified != nil }
}

extension Sequence<CacheEntry> {
    /// Bytes by blob: entries with the same content share one blob, counted once.
    var blobSizes: [String: Int64] {
        var sizes: [String: Int64] = [:]
        for entry in self { sizes[entry.sha256] = entry.byteCount }
        return sizes
    }
}
