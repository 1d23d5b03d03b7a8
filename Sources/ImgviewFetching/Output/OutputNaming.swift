import ImgviewImaging
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Chooses the file name a download is saved under, as `curl -O` does, but never outside the folder.
public enum OutputNaming {
    /// The last path component of `url`, percent-decoded and made safe; nil when it has none.
    ///
    /// Slashes, control characters and leading dots are removed, so the name can neither climb out
    /// of the folder (`..`), hide itself, nor carry escape sequences.
    public static func fileName(for url: URL) -> String? {
        let component = url.isFileURL ? url.lastPathComponent : (url.path.split(separator: "/").last.map(String.init) ?? "")
        let decoded = component.percentDecoded() ?? component
        var safe = String(
            decoded.unicodeScalars.filter { !TerminalText.isUnsafe($0) && $0 != "/" && $0 != "\\" }.map(Character.init))
        while safe.hasPrefix(".") { safe.removeFirst() }
        safe = safe.trimmingSpaces()
        guard !safe.isEmpty else { return nil }
        // File systems refuse names over 255 bytes; keep the extension.
        while safe.utf8.count > 255 {
            let ext = PathText.fileExtension(of: safe)
            let stem = PathText.stem(of: safe)
            safe = String(stem.dropLast()) + (ext.isEmpty ? "" : "." + ext)
        }
        return safe
    }

    /// A name for an image whose URL has none: the catalog name (or `image`) and the format's extension.
    public static func fallbackName(catalogName: String?, format: ImageFormat) -> String {
        "\(catalogName ?? "image").\(format.fileExtension)"
    }

    /// `name` for the first attempt, then `stem-1.ext`, `stem-2.ext`…: how two images that would
    /// share a name both get one (the browser's `d`, and `get` when two URLs end alike).
    public static func numbered(_ name: String, _ attempt: Int) -> String {
        guard attempt > 0 else { return name }
        let stem = PathText.stem(of: name)
        let ext = PathText.fileExtension(of: name)
        return "\(stem)-\(attempt)\(ext.isEmpty ? "" : "." + ext)"
    }
}
