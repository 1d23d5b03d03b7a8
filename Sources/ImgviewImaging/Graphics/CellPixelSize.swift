/// The size of one terminal cell in pixels, as the terminal reports it (TIOCGWINSZ, `CSI 16 t`).
public struct CellPixelSize: Sendable, Hashable, Codable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = max(1, width)
        self.height = max(1, height)
    }

    /// What most terminals use at their default font size, for when nothing says otherwise.
    public static let fallback = CellPixelSize(width: 10, height: 20)

    /// The largest cell believed: a very large font on a high-density screen (DECISIONS.md,
    /// "What the terminal says is bounded"). A terminal reporting more is not believed to the letter.
    public static let largest = CellPixelSize(width: 128, height: 256)

    /// A size a terminal or the kernel reported, brought within what real terminals have.
    public static func reported(width: Int, height: Int) -> CellPixelSize {
        CellPixelSize(width: min(max(1, width), largest.width), height: min(max(1, height), largest.height))
    }

    /// A cell's height divided by its width: what text previews need to keep an image's aspect.
    public var aspect: Double { Double(height) / Double(width) }
}
