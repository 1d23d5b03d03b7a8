/// The sizes of the freedesktop.org thumbnail folders: a thumbnail fits in a square of `pixels`.
public enum ThumbnailSize: String, Sendable, Hashable, CaseIterable {
    case normal
    case large
    case xLarge = "x-large"
    case xxLarge = "xx-large"

    public var pixels: Int {
        switch self {
        case .normal: 128
        case .large: 256
        case .xLarge: 512
        case .xxLarge: 1024
        }
    }

    /// The folder's name under `thumbnails/`.
    public var folder: String { rawValue }

    /// The smallest size whose thumbnails cover `pixels` on their longest side; `large` at least,
    /// the one file managers look in.
    public static func covering(_ pixels: Int) -> ThumbnailSize {
        allCases.first { $0.pixels >= pixels && $0 != .normal } ?? .xxLarge
    }

    /// A size `width × height` made to fit this size's square, never enlarged.
    public func fitted(width: Int, height: Int) -> (width: Int, height: Int) {
        let longest = max(width, height)
        guard longest > pixels else { return (width, height) }
        let scale = Double(pixels) / Double(longest)
        return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
    }
}

/// Thumbnails of local files that last between runs and are shared with other programs (the
/// freedesktop.org store in the app, a dictionary in tests).
public protocol ThumbnailStoring: Sendable {
    /// The pixels of a thumbnail of the file at `path` that is valid for the file as it is now
    /// (upright, RGBA), at least `size`'s or the whole image; nil when there is none.
    func thumbnail(ofFile path: String, size: ThumbnailSize) -> PixelBuffer?

    /// Whether an earlier attempt found the file (as it is now) unreadable as an image.
    func hasFailed(file path: String) -> Bool

    /// Keeps `pixels` (upright, already fitted to `size`) as the thumbnail of the file at `path`,
    /// whose image is `header`. Errors are swallowed: a thumbnail is a convenience.
    func store(_ pixels: PixelBuffer, ofFile path: String, size: ThumbnailSize, header: ImageHeader)

    /// Notes that the file at `path` could not be read as an image, so it is not tried again until it changes.
    func storeFailure(ofFile path: String)
}

/// Thumbnails of fetched bodies (a grid's cells of URLs), kept beside the bodies in imgview's
/// own cache and gone with them; named by the body's SHA-256, so new bytes never show an old one.
public protocol BodyThumbnailStoring: Sendable {
    /// The pixels of a stored thumbnail of the body `sha256` (upright, RGBA) of at least `size`'s
    /// square, the smallest there is; nil when there is none.
    func thumbnail(ofBody sha256: String, size: ThumbnailSize) -> PixelBuffer?

    /// Keeps `pixels` (upright, already fitted to `size`) as the thumbnail of the body `sha256`,
    /// fetched from `url`. Errors are swallowed: a thumbnail is a convenience.
    func store(_ pixels: PixelBuffer, ofBody sha256: String, size: ThumbnailSize, url: String)
}
