import Dispatch
import ImgviewImaging
import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// What a local image is sorted by, read from its file: modification time, size, and the date
/// it was taken. Nil fields are unknown (a URL, a file that went away): such images sort after
/// the known ones, in the order they were listed.
public struct ImageSortKeys: Sendable, Equatable {
    /// Nanoseconds since 1970.
    public var modified: Int64?
    public var byteCount: Int64?
    /// Seconds of local wall-clock time since 1970-01-01 00:00 (the zone left out, as EXIF
    /// leaves it out): the EXIF date taken, else the modification time read as local time.
    public var taken: Int64?

    public init(modified: Int64? = nil, byteCount: Int64? = nil, taken: Int64? = nil) {
        self.modified = modified
        self.byteCount = byteCount
        self.taken = taken
    }

    /// How many bytes of a file are read at a time for its EXIF date: a JPEG's, PNG's or TIFF's
    /// sits right after the directories, before any embedded thumbnail, in the first read
    /// (DECISIONS.md, "Sorting by date"); a HEIF's, WebP's or JPEG XL's item, chunk or box takes
    /// a read or two more where it is.
    public static let headLength = 4096

    /// The keys of the file `url` names; all nil for other URLs or a file that cannot be read.
    public static func read(_ url: URL) -> ImageSortKeys {
        guard url.isFileURL else { return ImageSortKeys() }
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else { return ImageSortKeys() }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return ImageSortKeys() }
        let modified = Self.nanoseconds(status.st_mtim)
        let taken = FileBytes(descriptor: FileDescriptor(rawValue: descriptor), windowSize: headLength)
            .flatMap { ExifDate.taken(in: $0) }?.wallClockSeconds
        return ImageSortKeys(
            modified: modified, byteCount: Int64(status.st_size), taken: taken ?? localWallClock(status.st_mtim.tv_sec))
    }

    /// A file's time in nanoseconds since 1970: anyone may set it (`touch -d 2300-01-01`), and past
    /// 2262 (or before 1677) it passes what an Int64 holds, and saturates.
    static func nanoseconds(_ time: timespec) -> Int64 {
        let (scaled, overflow) = Int64(time.tv_sec).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return time.tv_sec < 0 ? .min : .max }
        let (sum, sumOverflow) = scaled.addingReportingOverflow(Int64(time.tv_nsec))
        return sumOverflow ? .max : sum
    }

    /// `seconds` since 1970 as local wall-clock seconds, the form EXIF dates are compared in.
    static func localWallClock(_ seconds: Int) -> Int64? {
        var time = time_t(seconds)
        var parts = tm()
        guard localtime_r(&time, &parts) != nil else { return nil }
        return Int64(seconds) + Int64(parts.tm_gmtoff)
    }
}

/// Reads the sort keys of images, off any actor that must stay responsive.
public protocol SortKeyReading: Sendable {
    /// The keys of each image, by URL text.
    func keys(for images: [AppImage]) async -> [String: ImageSortKeys]
}

/// Reads sort keys from the files themselves, on a queue of its own (the reads block).
public struct FileSortKeyReader: SortKeyReading {
    private let queue = DispatchQueue(label: "imgview.sort-keys", qos: .userInitiated)

    public init() {}

    public func keys(for images: [AppImage]) async -> [String: ImageSortKeys] {
        await withCheckedContinuation { continuation in
            queue.async {
                var keys: [String: ImageSortKeys] = [:]
                keys.reserveCapacity(images.count)
                for image in images where keys[image.urlString] == nil { keys[image.urlString] = ImageSortKeys.read(image.url) }
                continuation.resume(returning: keys)
            }
        }
    }
}
