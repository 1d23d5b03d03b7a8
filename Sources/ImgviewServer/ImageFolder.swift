import Foundation
import ImgviewFetching
import ImgviewImaging
import ImgviewSupport

/// The images in one folder, as `imgview serve DIR` publishes them.
public struct ImageFolder: Sendable {
    /// One image file of the folder.
    public struct Entry: Sendable, Equatable {
        public let fileURL: URL
        public let fileName: String
        /// The catalog name made from the file name.
        public let name: String
        public let format: ImageFormat
        public let size: Int
        public let modified: Date
    }

    public let directory: URL
    /// The images, by file name; files that are not images (by their bytes) are left out.
    public let entries: [Entry]

    /// Reads the folder (not its subfolders) and sniffs each regular file's first bytes.
    public init(directory: URL) throws(ImageFolderError) {
        self.directory = directory
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) else {
            throw .notFound(directory.path)
        }
        guard isDirectory.boolValue else { throw .notADirectory(directory.path) }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        } catch {
            throw .unreadable(directory.path)
        }
        var taken = Set<String>()
        var entries: [Entry] = []
        for fileName in names where !fileName.hasPrefix(".") {
            let url = directory.appendingPathComponent(fileName)
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
                attributes[.type] as? FileAttributeType == .typeRegular,
                let handle = try? FileHandle(forReadingFrom: url)
            else { continue }
            let head = (try? handle.read(upToCount: ImageFormat.sniffLength)) ?? Data()
            try? handle.close()
            guard let format = ImageFormat.sniff(head) else { continue }
            let name = Self.catalogName(for: fileName, taken: taken)
            taken.insert(name)
            entries.append(
                Entry(
                    fileURL: url, fileName: fileName, name: name, format: format,
                    size: attributes[.size] as? Int ?? 0,
                    modified: attributes[.modificationDate] as? Date ?? Date(timeIntervalSince1970: 0)))
        }
        guard !entries.isEmpty else { throw .noImages(directory.path) }
        self.entries = entries
    }

    /// A valid, unused catalog name for a file: lower case, other characters as `-`, made unique with `-2`, `-3`….
    public static func catalogName(for fileName: String, taken: Set<String>) -> String {
        let stem = (fileName as NSString).deletingPathExtension
        var name = String(
            stem.lowercased().unicodeScalars.map { scalar -> Character in
                let allowed = ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || "._-".unicodeScalars.contains(scalar)
                return allowed ? Character(scalar) : "-"
            })
        while let first = name.first, !(first.isLetter || first.isNumber) { name.removeFirst() }
        name = String(name.prefix(AppImage.maxNameLength - 4))
        if name.isEmpty { name = "image" }
        var candidate = name
        var counter = 2
        while taken.contains(candidate) {
            candidate = "\(name)-\(counter)"
            counter += 1
        }
        return candidate
    }

    /// The URL path the server publishes an entry at.
    public static func path(for entry: Entry) -> String {
        "/images/"
            + (entry.fileName.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/")))
                ?? entry.name)
    }
}

/// Why a folder cannot be served.
public enum ImageFolderError: Error, Equatable {
    case notFound(String)
    case notADirectory(String)
    case unreadable(String)
    case noImages(String)
}

extension ImageFolderError: UserFacingError {
    public var message: String {
        switch self {
        case .notFound(let path): "\(TerminalText.sanitized(path)): no such folder"
        case .notADirectory(let path): "\(TerminalText.sanitized(path)): not a folder"
        case .unreadable(let path): "\(TerminalText.sanitized(path)): cannot be read"
        case .noImages(let path): "\(TerminalText.sanitized(path)): no JPEG, PNG, GIF, WebP or BMP images in this folder"
        }
    }

    public var exitStatus: ExitStatus { .notFound }
}

extension LoopbackServer {
    /// Publishes every image of `folder` under `/images/` and a catalog of them at `/catalog.json`.
    ///
    /// - Returns: the catalog, with absolute URLs on this server.
    @discardableResult
    public func serve(_ folder: ImageFolder, titles: [String: String] = [:]) -> Catalog {
        var images: [AppImage] = []
        for entry in folder.entries {
            let path = ImageFolder.path(for: entry)
            publish(
                ServedResource(
                    body: .file(entry.fileURL, size: entry.size), contentType: entry.format.mimeType,
                    etag: ETag.make(size: entry.size, modified: entry.modified), lastModified: entry.modified),
                at: path)
            images.append(AppImage(name: entry.name, title: titles[entry.fileName] ?? entry.fileName, url: url(for: path)))
        }
        let catalog = Catalog(images: images, origin: .remote(url(for: "/catalog.json")))
        publishCatalog(catalog)
        return catalog
    }

    /// Publishes `catalog` as JSON at `/catalog.json`.
    public func publishCatalog(_ catalog: Catalog, at path: String = "/catalog.json") {
        publish(.data(catalog.jsonData(), contentType: "application/json"), at: path)
    }
}
