import ImgviewImaging

/// How a preview is drawn: with real pixels in one of the graphics protocols, or as text.
public enum PreviewMode: String, Sendable, CaseIterable, Codable {
    case kitty, iterm, sixel, blocks, ascii

    public init(_ graphics: GraphicsProtocol) {
        switch graphics {
        case .kitty: self = .kitty
        case .iterm: self = .iterm
        case .sixel: self = .sixel
        }
    }

    /// The graphics protocol it draws with; nil for the text modes.
    public var graphics: GraphicsProtocol? {
        switch self {
        case .kitty: .kitty
        case .iterm: .iterm
        case .sixel: .sixel
        case .blocks, .ascii: nil
        }
    }

    /// The text renderer it draws with; nil for the graphics modes.
    public var text: RenderMode? {
        switch self {
        case .blocks: .blocks
        case .ascii: .ascii
        case .kitty, .iterm, .sixel: nil
        }
    }
}
