import ImgviewFetching
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Saves the browser's current image into a folder under a name that does not exist yet.
///
/// `photo.jpg`, then `photo-1.jpg`, `photo-2.jpg`…: the browser's `d` never clobbers and never
/// fails just because the user saved the same image twice. Each file appears whole or not at all.
public struct ImageSaver: Sendable {
    public let folder: URL

    public init(folder: URL) {
        self.folder = folder
    }

    /// Writes `data` under `preferredName` or the first free variant of it; returns where.
    public func save(_ data: Data, preferredName: String) throws -> URL {
        for attempt in 0..<1000 {
            let destination = folder.appendingPathComponent(OutputNaming.numbered(preferredName, attempt))
            do {
                _ = try OutputFile.publish(.data(data), byteCount: Int64(data.count), sha256: nil, to: destination, replace: false)
                return destination
            } catch let error as FileSystemError where error.code == EEXIST {
                continue
            }
        }
        throw FileSystemError(operation: "find a free name for", path: folder.appendingPathComponent(preferredName).path, errno: EEXIST)
    }
}
