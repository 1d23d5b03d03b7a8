import ImgviewSupport

/// What the browser's actions on images use: the trash, the desktop's opener, the key-handler,
/// how to reach the clipboard, and where copies of remote images go.
public struct BrowserActions: Sendable {
    /// Nil where there is no trash to use.
    public var trashCan: TrashCan?
    public var opener: ImageOpener
    public var keyHandler: KeyHandler?
    /// How text reaches the clipboard; asked on the first copy (it may ask tmux), off the main actor.
    public var clipboard: @Sendable () -> ClipboardRoute
    /// Where copies of remote images are written for the opener and the key-handler.
    public var copiesFolder: String

    public init(
        trashCan: TrashCan? = nil, opener: ImageOpener = ImageOpener(program: .unavailable("no opener here")),
        keyHandler: KeyHandler? = nil, clipboard: @escaping @Sendable () -> ClipboardRoute = { ClipboardRoute(multiplexer: .none) },
        copiesFolder: String = "/tmp/imgview-copies"
    ) {
        self.trashCan = trashCan
        self.opener = opener
        self.keyHandler = keyHandler
        self.clipboard = clipboard
        self.copiesFolder = copiesFolder
    }
}
