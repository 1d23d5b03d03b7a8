import ArgumentParser

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Imgview.Cache {
    /// `imgview cache path`: where the cache is, for scripts and curious users.
    struct Path: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "path",
            abstract: "Print the cache folder (which may not exist yet).",
            discussion: "The folder comes from --cache-dir, else IMGVIEW_CACHE_DIR, else $XDG_CACHE_HOME/imgview or ~/.cache/imgview.")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            // Printed as is, not sanitised: the user chose it, and a script needs the exact path.
            StandardOutput.write(global.cacheDirectoryURL.path + "\n")
        }
    }
}
