internal import CSPNG
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

/// The freedesktop.org Thumbnail Managing Standard's store (0.9.0): `thumbnails/<size>/<md5 of
/// the file URI>.png` under `$XDG_CACHE_HOME`, PNGs whose `Thumb::URI`, `Thumb::MTime` and
/// `Thumb::Size` say which file, as it was, they show. File managers read what imgview writes
/// and imgview reads what they wrote; a thumbnail of the file as it was before is ignored (and
/// replaced when imgview makes a new one). Failures go to `fail/imgview-<version>/`.
///
/// Folders are made 0700 and files 0600, written whole under a temporary name and renamed. The
/// shared repositories beside files (`.sh_thumbnails/`) are read, never written.
public struct FreedesktopThumbnails: ThumbnailStoring {
    /// `…/thumbnails`.
    public let root: String
    /// `imgview-0.1.0`: the fail folder's name.
    public let program: String
    /// Relative paths are taken from here.
    public let workingDirectory: String

    public init(root: String, version: String, workingDirectory: String) {
        self.root = ThumbnailName.canonicalPath(root)
        program = "imgview-" + version
        self.workingDirectory = workingDirectory
    }

    /// `$XDG_CACHE_HOME/thumbnails`, else `$HOME/.cache/thumbnails`; nil when neither is set.
    public static func standardRoot(environment: [String: String]) -> String? {
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") { return xdg + "/thumbnails" }
        if let home = environment["HOME"], home.hasPrefix("/") { return home + "/.cache/thumbnails" }
        return nil
    }

    // MARK: ThumbnailStoring

    public func storedThumbnail(ofFile path: String, size: ThumbnailSize) -> StoredThumbnail? {
        guard let file = original(path) else { return nil }
        for candidate in ThumbnailSize.allCases where candidate.pixels >= size.pixels {
            if let found = read(root + "/" + candidate.folder + "/" + file.name, accepting: file, shared: false) { return found }
        }
        // A shared repository beside the file: keyed by `./<name>`, its keys may be absent.
        let folder = Self.folder(of: file.path)
        let basename = Self.name(of: file.path)
        let sharedName = ThumbnailName.fileName(forURI: "./" + ThumbnailName.escaped(basename))
        for candidate in ThumbnailSize.allCases where candidate.pixels >= size.pixels {
            let shared = folder + "/.sh_thumbnails/" + candidate.folder + "/" + sharedName
            if let found = read(shared, accepting: file, shared: true) { return found }
        }
        return nil
    }

    public func failure(ofFile path: String) -> String? {
        guard let file = original(path) else { return nil }
        return readValid(root + "/fail/" + program + "/" + file.name, accepting: file, shared: false).map { $0.keys[Self.reasonKey] ?? "" }
    }

    public func store(_ pixels: PixelBuffer, ofFile path: String, size: ThumbnailSize, header: ImageHeader) {
        guard let file = original(path), let folder = folder(size.folder) else { return }
        let upright = header.uprightSize
        let texts =
            keys(for: file) + [
                ("Thumb::Mimetype", header.format.mimeType), ("Thumb::Image::Width", String(upright.width)),
                ("Thumb::Image::Height", String(upright.height)), ("Software", "imgview " + program.dropFirst("imgview-".count)),
            ]
        guard let png = Self.encode(pixels, texts: texts) else { return }
        try? AtomicFile.write(png, as: file.name, in: folder, sync: false, permissions: 0o600)
    }

    public func storeFailure(ofFile path: String, reason: String) {
        guard let file = original(path), let folder = folder("fail/" + program) else { return }
        let pixel = PixelBuffer(width: 1, height: 1, bytes: [0, 0, 0, 0])
        guard let png = Self.encode(pixel, texts: keys(for: file) + [(Self.reasonKey, Self.latin1Text(reason))]) else { return }
        try? AtomicFile.write(png, as: file.name, in: folder, sync: false, permissions: 0o600)
    }

    // MARK: The original

    /// What the standard keys a file by: its URI, the thumbnail's file name, and its state now.
    struct Original {
        var path: String
        var uri: String
        var name: String
        var modified: Int
        var size: Int
    }

    /// The file at `path`, if it is a regular file this process can read and not inside the
    /// thumbnail folders themselves (the standard: no thumbnails of thumbnails, nothing at all
    /// for unreadable files).
    func original(_ path: String) -> Original? {
        let canonical = ThumbnailName.canonicalPath(path, in: workingDirectory)
        guard !canonical.hasPrefix(root + "/") else { return nil }
        var status = stat()
        guard stat(canonical, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, access(canonical, R_OK) == 0 else { return nil }
        let uri = "file://" + ThumbnailName.escaped(canonical)
        return Original(
            path: canonical, uri: uri, name: ThumbnailName.fileName(forURI: uri), modified: Int(status.st_mtim.tv_sec),
            size: Int(status.st_size))
    }

    /// The key of a failure marker's reason, in the standard's namespace for an application's own keys.
    static let reasonKey = "X-imgview::Reason"

    /// `text` as a tEXt chunk may hold it (printable ASCII, a subset of Latin-1), at most one line.
    static func latin1Text(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.prefix(400).map { (0x20..<0x7F).contains($0.value) ? $0 : "?" }))
    }

    private func keys(for file: Original) -> [(String, String)] {
        [("Thumb::URI", file.uri), ("Thumb::MTime", String(file.modified)), ("Thumb::Size", String(file.size))]
    }

    /// Whether a thumbnail's keys describe `file` as it is: URI and MTime equal (required in the
    /// personal store; in a shared one, absent means "matches"), Size equal when present.
    static func isValid(_ texts: [String: String], for file: Original, shared: Bool) -> Bool {
        if let uri = texts["Thumb::URI"] {
            let expected = shared ? "./" + ThumbnailName.escaped(Self.name(of: file.path)) : file.uri
            guard uri == expected else { return false }
        } else if !shared {
            return false
        }
        if let modified = texts["Thumb::MTime"] {
            guard Int(modified) == file.modified else { return false }
        } else if !shared {
            return false
        }
        if let size = texts["Thumb::Size"], Int(size) != file.size { return false }
        return true
    }

    /// `name` under the root, made (0700) if missing, through folders that are real folders.
    private func folder(_ relative: String) -> Directory? {
        let parent = Self.folder(of: root)
        if mkdir(parent, 0o700) != 0, errno != EEXIST { return nil }
        guard let base = try? Directory.open(parent) else { return nil }
        var folder = base
        for part in ([Self.name(of: root)] + relative.split(separator: "/").map(String.init)) {
            guard let next = try? folder.makeSubdirectory(part, permissions: 0o700) else { return nil }
            folder = next
        }
        return folder
    }

    private static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func name(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    // MARK: PNG with text

    private func read(_ path: String, accepting file: Original, shared: Bool) -> StoredThumbnail? {
        readValid(path, accepting: file, shared: shared).map { Self.stored($0.pixels, keys: $0.keys, file: file) }
    }

    /// The pixels and keys of the PNG at `path` when its keys describe `file` as it is.
    private func readValid(_ path: String, accepting file: Original, shared: Bool) -> (pixels: PixelBuffer, keys: [String: String])? {
        let folder = Self.folder(of: path)
        guard let directory = try? Directory.open(folder) else { return nil }
        let reader = SmallFileReader(folder: directory)
        var keys: [String: String] = [:]
        guard
            let pixels = reader.read(
                Self.name(of: path),
                { bytes, _ in
                    Self.decode(bytes) { texts in
                        keys = texts
                        return Self.isValid(texts, for: file, shared: shared)
                    }
                })
        else { return nil }
        return (pixels, keys)
    }

    /// What a valid thumbnail's keys say of the image it shows.
    static func stored(_ pixels: PixelBuffer, keys: [String: String], file: Original) -> StoredThumbnail {
        let width = keys["Thumb::Image::Width"].flatMap { Int($0) }
        let height = keys["Thumb::Image::Height"].flatMap { Int($0) }
        let format = keys["Thumb::Mimetype"].flatMap { mime in ImageFormat.allCases.first { $0.mimeType == mime } }
        return StoredThumbnail(
            pixels: pixels, format: format, imageSize: width.flatMap { width in height.map { ImageDimensions(width: width, height: $0) } },
            fileSize: file.size, modified: file.modified, isOwn: keys["Software"]?.hasPrefix("imgview ") == true)
    }

    /// The pixels of a PNG (RGBA) whose text chunks `accept` takes; the text is looked at before
    /// the pixels are decoded, and again after (some writers put it after the image data).
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, accept: ([String: String]) -> Bool) -> PixelBuffer? {
        guard let spng = try? PNGLibrary.functions() else { return nil }
        guard let context = spng.spng_ctx_new(0) else { return nil }
        defer { spng.spng_ctx_free(context) }
        guard spng.spng_set_png_buffer(context, bytes.baseAddress, bytes.count) == 0 else { return nil }
        var header = spng_ihdr()
        guard spng.spng_get_ihdr(context, &header) == 0, header.width > 0, header.height > 0, header.width <= 4096,
            header.height <= 4096
        else { return nil }
        var texts = Self.texts(context, spng)
        if !texts.isEmpty, !accept(texts) { return nil }
        let format = Int32(SPNG_FMT_RGBA8.rawValue)
        var length = 0
        guard spng.spng_decoded_image_size(context, format, &length) == 0 else { return nil }
        var pixels = [UInt8](repeating: 0, count: length)
        let status = pixels.withUnsafeMutableBytes {
            spng.spng_decode_image(context, $0.baseAddress, length, format, Int32(SPNG_DECODE_TRNS.rawValue))
        }
        guard status == 0 else { return nil }
        if texts.isEmpty {
            texts = Self.texts(context, spng)
            guard accept(texts) else { return nil }
        }
        guard length == Int(header.width) * Int(header.height) * 4 else { return nil }
        return PixelBuffer(width: Int(header.width), height: Int(header.height), bytes: pixels)
    }

    private static func texts(_ context: OpaquePointer, _ spng: imgview_spng) -> [String: String] {
        var count: UInt32 = 0
        guard spng.spng_get_text(context, nil, &count) == 0, count > 0, count < 256 else { return [:] }
        var chunks = [spng_text](repeating: spng_text(), count: Int(count))
        guard spng.spng_get_text(context, &chunks, &count) == 0 else { return [:] }
        var texts: [String: String] = [:]
        for chunk in chunks.prefix(Int(count)) {
            let keyword = withUnsafeBytes(of: chunk.keyword) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let text = chunk.text else { continue }
            texts[keyword] = String(decoding: UnsafeRawBufferPointer(start: text, count: chunk.length), as: UTF8.self)
        }
        return texts
    }

    /// The pixels of a thumbnail PNG (RGBA) whatever its text says: one imgview keeps elsewhere
    /// (beside a cached body), which its name alone identifies.
    public static func decode(_ data: Data) -> PixelBuffer? {
        data.withUnsafeBytes { decode($0.bindMemory(to: UInt8.self)) { _ in true } }
    }

    /// An 8-bit RGBA PNG of `pixels` with `texts` as tEXt chunks before the image data;
    /// compressed (thumbnails are kept, not streamed once), for reading fast: every row filtered
    /// by Sub, which for photographs is as small as choosing per row and quicker to undo than
    /// Paeth, at zlib's level 1.
    public static func encode(_ pixels: PixelBuffer, texts: [(String, String)]) -> Data? {
        guard let spng = try? PNGLibrary.functions() else { return nil }
        guard let context = spng.spng_ctx_new(Int32(SPNG_CTX_ENCODER.rawValue)) else { return nil }
        defer { spng.spng_ctx_free(context) }
        guard spng.spng_set_option(context, SPNG_ENCODE_TO_BUFFER, 1) == 0,
            spng.spng_set_option(context, SPNG_IMG_COMPRESSION_LEVEL, 1) == 0,
            spng.spng_set_option(context, SPNG_FILTER_CHOICE, Int32(SPNG_FILTER_CHOICE_SUB.rawValue)) == 0
        else { return nil }
        var header = spng_ihdr()
        header.width = UInt32(pixels.width)
        header.height = UInt32(pixels.height)
        header.bit_depth = 8
        header.color_type = UInt8(SPNG_COLOR_TYPE_TRUECOLOR_ALPHA.rawValue)
        guard spng.spng_set_ihdr(context, &header) == 0 else { return nil }
        // C copies of the texts, alive until the image is encoded.
        let copies = texts.map { strdup($0.1) }
        defer { for copy in copies { free(copy) } }
        var chunks = [spng_text](repeating: spng_text(), count: texts.count)
        for index in chunks.indices {
            guard let copy = copies[index] else { return nil }
            withUnsafeMutableBytes(of: &chunks[index].keyword) { keyword in
                keyword.copyBytes(from: Array(texts[index].0.utf8.prefix(79)))
            }
            chunks[index].type = Int32(SPNG_TEXT.rawValue)
            chunks[index].length = strlen(copy)
            chunks[index].text = copy
        }
        if !chunks.isEmpty, spng.spng_set_text(context, &chunks, UInt32(chunks.count)) != 0 { return nil }
        let set = pixels.bytes.withUnsafeBytes {
            spng.spng_encode_image(context, $0.baseAddress, $0.count, Int32(SPNG_FMT_PNG.rawValue), Int32(SPNG_ENCODE_FINALIZE.rawValue))
        }
        guard set == 0 else { return nil }
        var length = 0
        var error: Int32 = 0
        guard let buffer = spng.spng_get_png_buffer(context, &length, &error) else { return nil }
        defer { free(buffer) }
        return Data(bytes: buffer, count: length)
    }
}
