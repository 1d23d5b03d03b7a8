import ImgviewFetching
import ImgviewImaging
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

    /// The name an image is saved under: its URL's file name (or the catalog name), with the
    /// format's extension when the URL has none (…/images/hopper), so other programs recognise it.
    public static func fileName(for image: AppImage, format: ImageFormat) -> String {
        let name = OutputNaming.fileName(for: image.url) ?? OutputNaming.fallbackName(catalogName: image.name, format: format)
        return PathText.fileExtension(of: name).isEmpty ? name + "." + format.fileExtension : name
    }

    /// Writes `data` under `preferredName` or the first free variant of it, marked with where it
    /// came from (`origin`, an http(s) URL, as `get` marks its files); returns where.
    public func save(_ data: Data, preferredName: String, origin: URL? = nil) throws -> URL {
        let attributes = OutputAttributes(originURL: origin.flatMap(OutputAttributes.origin(of:)))
        for attempt in 0..<1000 {
            let destination = folder.appendingPathComponent(OutputNaming.numbered(preferredName, attempt))
            do {
                _ = try OutputFile.publish(
                    .data(data), byteCount: Int64(data.count), sha256: nil, to: destination, replace: false, attributes: attributes)
                return destination
            } catch let error as FileSystemError where error.code == EEXIST {
                continue
            }
        }
        throw FileSystemError(operation: "find a free name for", path: folder.appendingPathComponent(preferredName).path, errno: EEXIST)
    }
}
