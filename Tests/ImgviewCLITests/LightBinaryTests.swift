import Foundation
import ImgviewServer
import Testing

/// The binary under test (`IMGVIEW_BIN`, else the one beside the tests) carries no more than it
/// needs: no FoundationNetworking, no ICU, no full Foundation, and no codec library that is
/// opened on demand; that one is opened only by the command that meets its format.
/// `scripts/test.sh` runs this suite against `make release`'s binary as well as the debug one.
@Suite("A light binary")
struct LightBinaryTests {
    @Test func onlyACommandThatFetchesOpensLibcurl() async throws {
        let server = try await LoopbackServer.start()
        try await stopping(server) {
            let image = try Data(contentsOf: ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/04_coffee.png"))
            server.publish(.data(image, contentType: "image/png"), at: "/coffee.png")
            let local = try await Self.loadedLibraries([
                "info", ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/04_coffee.png").path,
            ])
            #expect(local.status == 0)
            #if !URLSession
                #expect(!local.libraries.contains { $0.hasPrefix("libcurl") }, "\(local.libraries)")
            #endif
            let remote = try await Self.loadedLibraries(["info", server.url(for: "/coffee.png").absoluteString])
            #expect(remote.status == 0)
            #expect(remote.libraries.contains { $0.hasPrefix("libcurl.so") }, "\(remote.libraries)")
        }
    }

    /// What the loader maps at start-up, every library and those they need (`ldd`).
    static func linkedLibraries(of binary: URL) async throws -> [String] {
        let result = try await ImgviewProcess.run([binary.path], executable: URL(fileURLWithPath: "/usr/bin/ldd"))
        return result.stdout.split(separator: "\n").compactMap { line in
            line.split(separator: " ").first.map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// Shared objects the dynamic loader opened while `imgview arguments` ran (`LD_DEBUG=files`).
    static func loadedLibraries(_ arguments: [String]) async throws -> (status: Int32, libraries: [String]) {
        let result = try await ImgviewProcess.run(arguments, environment: ["LD_DEBUG": "files"])
        let names = result.stderr.split(separator: "\n").compactMap { line -> String? in
            guard line.contains("generating link map"), let start = line.range(of: "file=") else { return nil }
            return String(line[start.upperBound...].prefix { $0 != " " })
        }
        return (result.status, names)
    }

    static let codecs = ["libavif", "libdav1d", "libaom", "libgav1", "librav1e", "libSvtAv1", "libyuv", "libabsl"]
    #if URLSession
        // A build with the URLSession trait links FoundationNetworking, and with it libcurl, on purpose.
        static let onDemand = codecs + ["libxml2"]
        static let fetchingOnly: [String] = []
    #else
        static let onDemand = codecs + ["libcurl", "libbrotli", "libxml2"]
        static let fetchingOnly = ["libcurl"]
    #endif

    @Test func linksNoFoundationNetworkingNoICUAndNoOnDemandCodec() async throws {
        let libraries = try await Self.linkedLibraries(of: ImgviewProcess.binary)
        #expect(libraries.contains { $0.hasPrefix("libc.so") }, "ldd listed nothing: \(libraries)")
        // A debug build links the Swift libraries dynamically, and TOMLKit's `import Foundation`
        // names libFoundation (and ICU) for the loader though no symbol of theirs is used: the
        // symbols are what counts there; `make release`'s static binary carries neither.
        let dynamicRuntime = libraries.contains { $0.hasPrefix("libswiftCore") }
        var unwanted = ["libFoundationNetworking"]
        if !dynamicRuntime { unwanted += ["libFoundation.so", "libFoundationInternationalization", "lib_FoundationICU", "libicu"] }
        #if URLSession
            // A build with the URLSession trait brings Foundation on purpose; the codecs stay out.
            let forbidden = Self.codecs
        #else
            let forbidden = unwanted + Self.onDemand
        #endif
        for name in forbidden {
            #expect(!libraries.contains { $0.hasPrefix(name) }, "\(name) is linked: \(libraries)")
        }
    }

    /// No symbol of Foundation's own module or of ICU is used: undefined ones in a dynamically
    /// linked build, defined ones in a static build, where the linker would have copied them in.
    @Test(.enabled(if: !Self.urlSessionBuild, "a build with the URLSession trait uses Foundation on purpose"))
    func usesNoSymbolOfFoundationOrICU() async throws {
        let result = try await ImgviewProcess.run(
            ["--format=just-symbols", ImgviewProcess.binary.path], executable: URL(fileURLWithPath: "/usr/bin/nm"))
        #expect(result.status == 0, "nm failed: \(result.stderr)")
        let symbols = result.stdout.split(separator: "\n")
        #expect(symbols.count > 1000, "nm listed almost nothing")
        let foreign = symbols.filter { symbol in
            symbol.hasPrefix("$s10Foundation") || symbol.contains("33FoundationInternationalization")
                || symbol.hasPrefix("ucol_") || symbol.hasPrefix("ubrk_") || symbol.hasPrefix("ucal_")
        }
        #expect(foreign.isEmpty, "\(foreign.count) symbols of Foundation or ICU, such as \(foreign.prefix(5))")
    }

    /// `make release`'s binary is linked so that the dynamic loader has little to do before
    /// `main`: its relative relocations packed (DT_RELR) and none of its own symbols exported.
    /// A debug build, linked by SwiftPM's defaults, is not checked.
    @Test func theReleaseBinaryIsLinkedForStartUp() async throws {
        let libraries = try await Self.linkedLibraries(of: ImgviewProcess.binary)
        guard !libraries.contains(where: { $0.hasPrefix("libswiftCore") }) else { return }
        let readelf = URL(fileURLWithPath: "/usr/bin/readelf")
        let dynamic = try await ImgviewProcess.run(["--dynamic", ImgviewProcess.binary.path], executable: readelf)
        #expect(dynamic.status == 0, "readelf failed: \(dynamic.stderr)")
        #expect(dynamic.stdout.contains("(RELR)"), "relocations are not packed:\n\(dynamic.stdout)")
        #expect(!dynamic.stdout.contains("libstdc++"), "libstdc++ is loaded at every start:\n\(dynamic.stdout)")
        let symbols = try await ImgviewProcess.run(["--dyn-syms", "--wide", ImgviewProcess.binary.path], executable: readelf)
        let exported = symbols.stdout.split(separator: "\n").filter { $0.contains(" GLOBAL ") && !$0.contains(" UND ") }
        #expect(exported.count < 100, "\(exported.count) symbols exported, such as \(exported.prefix(3))")
    }

    #if URLSession
        static let urlSessionBuild = true
    #else
        static let urlSessionBuild = false
    #endif

    @Test func onlyACommandThatMeetsAnAVIFOpensLibavif() async throws {
        let png = ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/04_coffee.png")
        let avif = ImgviewProcess.repositoryRoot.appendingPathComponent("Tests/ImgviewCodecsTests/Fixtures/hopper.avif")
        let version = try await Self.loadedLibraries(["--version"])
        #expect(version.status == 0)
        #expect(!version.libraries.contains { $0.hasPrefix("libavif") }, "\(version.libraries)")

        let still = try await Self.loadedLibraries(["show", png.path, "--size", "20x6", "--mode", "ascii"])
        #expect(still.status == 0)
        #expect(
            !still.libraries.contains { name in (["libavif"] + Self.fetchingOnly).contains { name.hasPrefix($0) } }, "\(still.libraries)")

        let decoded = try await Self.loadedLibraries(["show", avif.path, "--size", "20x6", "--mode", "ascii"])
        #expect(decoded.status == 0)
        #expect(decoded.libraries.contains { $0.hasPrefix("libavif.so") }, "\(decoded.libraries)")
        #expect(decoded.libraries.contains { $0.hasPrefix("libdav1d") || $0.hasPrefix("libaom") }, "\(decoded.libraries)")
    }

    /// giflib, libwebp(+demux) and ncursesw (with its libtinfo) are opened by the command that
    /// needs them: a GIF's decode, a WebP's, the browser. `--version` and `info` load none, and a
    /// browser whose ncurses cannot be loaded says which package to install (exit 12).
    @Test func onlyTheCommandThatNeedsThemOpensGiflibLibwebpAndNcurses() async throws {
        let png = ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/04_coffee.png")
        let fixtures = ImgviewProcess.repositoryRoot.appendingPathComponent("Tests/ImgviewCodecsTests/Fixtures")
        let mine = ["libgif", "libwebp", "libncursesw", "libtinfo"]
        func loaded(_ prefixes: [String], _ libraries: [String]) -> [String] {
            libraries.filter { name in prefixes.contains { name.hasPrefix($0) } }
        }
        for arguments in [["--version"], ["info", png.path], ["show", png.path, "--size", "20x6", "--mode", "ascii"]] {
            let run = try await Self.loadedLibraries(arguments)
            #expect(run.status == 0, "\(arguments)")
            #expect(loaded(mine, run.libraries).isEmpty, "\(arguments): \(run.libraries)")
        }
        let gif = try await Self.loadedLibraries(["show", fixtures.appendingPathComponent("hopper.gif").path, "--size", "20x6"])
        #expect(gif.status == 0)
        #expect(loaded(mine, gif.libraries) == ["libgif.so.7"], "\(gif.libraries)")
        let webp = try await Self.loadedLibraries(["show", fixtures.appendingPathComponent("hopper.webp").path, "--size", "20x6"])
        #expect(webp.status == 0)
        #expect(Set(loaded(mine, webp.libraries)) == ["libwebpdemux.so.2", "libwebp.so.7"], "\(webp.libraries)")

        // The browser, in a tmux pane: the loader's list goes to files (LD_DEBUG_OUTPUT), one per process.
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("ld").path
        let environment = ["LD_DEBUG": "files", "LD_DEBUG_OUTPUT": log, "IMGVIEW_CACHE_DIR": folder.appendingPathComponent("cache").path]
        let browser = try await TmuxSession(command: TmuxSession.imgviewCommand([png.path], environment: environment), directory: folder)
        do {
            try await browser.waitForScreen { $0.contains("04_coffee.png") && $0.contains("quit") }
            try await browser.send("q")
            let screen = try await browser.waitForScreen { $0.contains("EXIT=") }
            #expect(screen.contains("EXIT=0"), "\(screen)")
        } catch {
            await browser.kill()
            throw error
        }
        await browser.kill()
        let logs = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("ld.") }
        let text = try logs.map { try String(contentsOfFile: folder.appendingPathComponent($0).path, encoding: .utf8) }.joined()
        #expect(text.contains("file=libncursesw.so.6") && text.contains("file=libtinfo.so.6"), "\(logs)")

        // A libncursesw.so.6 that is not ncurses (libz, found first through LD_LIBRARY_PATH).
        let fake = folder.appendingPathComponent("fake")
        try FileManager.default.createDirectory(at: fake, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: fake.appendingPathComponent("libncursesw.so.6").path, withDestinationPath: "/lib/x86_64-linux-gnu/libz.so.1")
        let missing = try await TmuxSession(
            columns: 200, command: TmuxSession.imgviewCommand([png.path], environment: ["LD_LIBRARY_PATH": fake.path]), directory: folder)
        do {
            let screen = try await missing.waitForScreen { $0.contains("EXIT=") }
            #expect(
                screen.contains(
                    "imgview: the browser cannot start: libncursesw.so.6 cannot be loaded (install the Debian package libncursesw6): it has no newterm"
                ), "\(screen)")
            #expect(screen.contains("EXIT=12"), "\(screen)")
        } catch {
            await missing.kill()
            throw error
        }
        await missing.kill()
    }

    @Test func onlyACommandThatMeetsAJPEGOrAPNGOpensLibjpegOrLibspng() async throws {
        let png = ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/04_coffee.png")
        let jpeg = ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/09_cups_progressive.jpg")
        let both = ["libjpeg", "libspng"]
        for arguments in [["--version"], ["info", png.path]] {
            let run = try await Self.loadedLibraries(arguments)
            #expect(run.status == 0, "\(arguments)")
            #expect(!run.libraries.contains { name in both.contains { name.hasPrefix($0) } }, "\(arguments): \(run.libraries)")
        }

        let shownPNG = try await Self.loadedLibraries(["show", png.path, "--size", "20x6", "--mode", "ascii"])
        #expect(shownPNG.status == 0)
        #expect(shownPNG.libraries.contains { $0.hasPrefix("libspng.so") }, "\(shownPNG.libraries)")
        #expect(!shownPNG.libraries.contains { $0.hasPrefix("libjpeg") }, "\(shownPNG.libraries)")

        // libjpeg, opened at run time, must still find the executable's hooks for its large
        // allocations and its backing store (JPEGLargeMemory.swift), which only exported ones can be.
        let result = try await ImgviewProcess.run(
            // Large enough that the picture is decoded by libjpeg, not from the DC coefficients alone.
            ["show", jpeg.path, "--size", "80x24", "--mode", "blocks"], environment: ["LD_DEBUG": "files,bindings"])
        #expect(result.status == 0, "\(result.stderr.suffix(500))")
        #expect(result.stderr.contains("file=libjpeg.so.62"), "libjpeg was not opened")
        #expect(!result.stderr.contains("file=libspng"), "libspng was opened for a JPEG")
        for hook in ["jpeg_get_large", "jpeg_free_large", "jpeg_open_backing_store"] {
            let binding = result.stderr.split(separator: "\n").first { $0.contains("libjpeg.so.62") && $0.contains("`\(hook)'") }
            #expect(
                binding.map { $0.contains("/\(ImgviewProcess.binary.lastPathComponent) [") } == true,
                "\(hook) is not bound to the executable's: \(binding.map { String($0) } ?? "no binding")")
        }
    }
}
