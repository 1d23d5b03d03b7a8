import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Finds the bundled `Assets/` folder (demo images and catalog) at run time.
enum BundledAssets {
    /// `$IMGVIEW_ASSETS`, else `../share/imgview/Assets` beside the executable's folder (what
    /// `make install` puts there), else the nearest `Assets/` above the executable (a build inside
    /// the repository), else the repository this binary was built from.
    static func folder() throws -> URL {
        var candidates: [URL] = []
        if let override = ProcessInfo.processInfo.environment["IMGVIEW_ASSETS"], !override.isEmpty {
            candidates.append(URL(fileURLWithPath: override))
        }
        var directory = URL(fileURLWithPath: ServerProgram.executablePath()).deletingLastPathComponent()
        candidates.append(directory.deletingLastPathComponent().appendingPathComponent("share/imgview/Assets"))
        while directory.path != "/" {
            candidates.append(directory.appendingPathComponent("Assets"))
            directory.deleteLastPathComponent()
        }
        candidates.append(
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Assets").standardizedFileURL)
        for candidate in candidates where FileManager.default.fileExists(atPath: candidate.appendingPathComponent("demo-catalog.json").path)
        {
            return candidate
        }
        throw AssetsNotFound()
    }

    struct AssetsNotFound: UserFacingError {
        var exitStatus: ExitStatus { .notFound }
        var message: String { "the bundled Assets folder was not found; set IMGVIEW_ASSETS to its path" }
    }
}
