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

/// A lasting thumbnail as found in a store: its pixels, and what its keys say of the image it shows.
public struct StoredThumbnail: Sendable {
    /// Upright, RGBA.
    public var pixels: PixelBuffer
    /// The image's format, from `Thumb::Mimetype`; nil when the thumbnail does not say.
    public var format: ImageFormat?
    /// The image's upright size, from `Thumb::Image::Width` and `Thumb::Image::Height`.
    public var imageSize: ImageDimensions?
    /// The file's size in bytes and modification time (seconds) the thumbnail was made of.
    public var fileSize: Int?
    public var modified: Int?
    /// Made by imgview, which makes lasting thumbnails of still images only.
    public var isOwn: Bool

    public init(
        pixels: PixelBuffer, format: ImageFormat? = nil, imageSize: ImageDimensions? = nil, fileSize: Int? = nil, modified: Int? = nil,
        isOwn: Bool = false
    ) {
        self.pixels = pixels
        self.format = format
        self.imageSize = imageSize
        self.fileSize = fileSize
        self.modified = modified
        self.isOwn = isOwn
    }

    /// The image's header as far as the keys tell it (upright, one page), when they name its format
    /// and size and it is a still: what stands in for reading the file. An animation's thumbnail
    /// is its first frame, so only imgview's own (stills only) or a format that never moves qualify.
    public var header: ImageHeader? {
        guard let format, let imageSize, imageSize.width > 0, imageSize.height > 0,
            isOwn || [.jpeg, .bmp, .tiff, .svg, .ico, .qoi].contains(format)
        else { return nil }
        return ImageHeader(format: format, storedWidth: imageSize.width, storedHeight: imageSize.height, orientation: .up)
    }
}

/// Thumbnails of local files that last between runs and are shared with other programs (the
/// freedesktop.org store in the app, a dictionary in tests).
public protocol ThumbnailStoring: Sendable {
    /// A thumbnail of the file at `path` that is valid for the file as it is now, at least
    /// `size`'s or the whole image; nil when there is none. Looks at the file's status, never
    /// at its bytes.
    func storedThumbnail(ofFile path: String, size: ThumbnailSize) -> StoredThumbnail?

    /// Why an earlier attempt found the file (as it is now) unreadable as an image, in that
    /// attempt's words ("" when the note gives none); nil when no attempt did.
    func failure(ofFile path: String) -> String?

    /// Keeps `pixels` (upright, already fitted to `size`) as the thumbnail of the file at `path`,
    /// whose image is `header`. Errors are swallowed: a thumbnail is a convenience.
    func store(_ pixels: PixelBuffer, ofFile path: String, size: ThumbnailSize, header: ImageHeader)

    /// Notes that the file at `path` could not be read as an image, and why, so it is not tried
    /// again until it changes.
    func storeFailure(ofFile path: String, reason: String)
}

extension ThumbnailStoring {
    /// The pixels of a thumbnail of the file at `path` that is valid for the file as it is now
    /// (upright, RGBA), at least `size`'s or the whole image; nil when there is none.
    public func thumbnail(ofFile path: String, size: ThumbnailSize) -> PixelBuffer? {
        storedThumbnail(ofFile: path, size: size)?.pixels
    }
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
