import ImgviewImaging

/// A finished preview and the facts of the image it shows.
public struct PreviewResponse: Sendable, Equatable {
    public var facts: ImageFacts
    public var preview: RenderedPreview
    /// Set when only part of the image could be decoded (a truncated or damaged file).
    public var warning: String?

    public init(facts: ImageFacts, preview: RenderedPreview, warning: String?) {
        self.facts = facts
        self.preview = preview
        self.warning = warning
    }
}
