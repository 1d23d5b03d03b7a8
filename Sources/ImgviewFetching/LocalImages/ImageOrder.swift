/// The orders the browser can list images in (`--sort`, `--shuffle`, the order key).
public enum ImageOrder: String, Sendable, CaseIterable {
    /// As listed: the arguments in the order given, each folder's images in natural name order, a
    /// catalog's in its own order.
    case name
    /// The date the picture was taken (EXIF), else the file's modification time.
    case date
    /// The file's modification time.
    case mtime
    /// The file's size in bytes.
    case size
    /// A random order.
    case shuffle

    /// The order the order key goes to next: name, date, mtime, size, and round again.
    public var next: ImageOrder {
        switch self {
        case .name: .date
        case .date: .mtime
        case .mtime: .size
        case .size, .shuffle: .name
        }
    }

    /// Whether images must be looked at (their files read) to be put in this order.
    public var needsKeys: Bool {
        self == .date || self == .mtime || self == .size
    }

    /// How the status line names the order.
    public var summary: String {
        switch self {
        case .name: "name"
        case .date: "date taken"
        case .mtime: "modification time"
        case .size: "size"
        case .shuffle: "random order"
        }
    }
}
