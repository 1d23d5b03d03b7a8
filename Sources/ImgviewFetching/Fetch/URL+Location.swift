import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension URL {
    /// The URL an image read from standard input goes by (`show -`, `info -`).
    public static let standardInput = URL(string: "imgview-stdin:-")!

    /// Where the bytes are, as a user named them: `standard input`, a path for a local file,
    /// else the URL. Not sanitised: callers that print it make it safe.
    public var location: String {
        if self == .standardInput { return "standard input" }
        return isFileURL ? displayPath : absoluteString
    }
}
