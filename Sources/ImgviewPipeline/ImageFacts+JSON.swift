import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension ImageFacts: Encodable {
    /// `imgview info --json`: stable keys, every one always present (null when unknown).
    enum CodingKeys: String, CodingKey {
        case format, previewable, width, height, storedWidth = "stored_width", storedHeight = "stored_height", orientation, frames,
            durationMilliseconds = "duration_ms", loopCount = "loop_count", bytes, sha256, source, origin, cacheState = "cache_state",
            etag, lastModified = "last_modified"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(format.displayName, forKey: .format)
        try container.encode(format.isPreviewable, forKey: .previewable)
        try container.encode(width, forKey: .width)
        try container.encode(height, forKey: .height)
        try container.encode(storedWidth, forKey: .storedWidth)
        try container.encode(storedHeight, forKey: .storedHeight)
        try container.encode(orientation.rawValue, forKey: .orientation)
        try container.encode(animation?.frameCount ?? 1, forKey: .frames)
        try container.encode(animation.map { Int($0.duration / .milliseconds(1)) }, forKey: .durationMilliseconds)
        try container.encode(animation?.loopCount, forKey: .loopCount)
        try container.encode(byteCount, forKey: .bytes)
        try container.encode(sha256, forKey: .sha256)
        try container.encode(TerminalText.sanitized(location), forKey: .source)
        try container.encode(source.rawValue, forKey: .origin)
        try container.encode(cacheState.description, forKey: .cacheState)
        try container.encode(etag.map(TerminalText.sanitized), forKey: .etag)
        try container.encode(lastModified.map(TerminalText.sanitized), forKey: .lastModified)
    }
}
