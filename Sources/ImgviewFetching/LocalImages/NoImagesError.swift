import ImgviewSupport

/// `imgview browse` was given files and folders, and none of them holds an image.
public struct NoImagesError: Error, Sendable, Equatable, UserFacingError {
    /// The arguments, as the user typed them.
    public let arguments: [String]

    public init(arguments: [String]) {
        self.arguments = arguments
    }

    public var message: String {
        let named = arguments.prefix(3).map { TerminalText.sanitized($0) }.joined(separator: ", ") + (arguments.count > 3 ? ", …" : "")
        return "no images in \(named) (an image is told by its first bytes: JPEG, PNG, GIF, WebP, BMP…)"
    }

    public var exitStatus: ExitStatus { .notFound }
}
