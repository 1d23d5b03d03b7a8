// swift-tools-version:6.1
import PackageDescription

// The shape follows ../shared/STYLE.md: a core library with no C and no ncurses, one thin
// Swift module per C library family, and an executable that only parses and wires.
let package = Package(
    name: "imgview",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "imgview", targets: ["imgview"]),
        .executable(name: "imgview-server", targets: ["imgview-server"]),
    ],
    // URLSession: the second HTTP client (`IMGVIEW_HTTP=urlsession`). Off by default on Linux,
    // where it would bring FoundationNetworking, ICU and a second libcurl into every command
    // (DECISIONS.md, "A light binary"); CI builds with it on and runs the loader contract tests
    // through both clients. `swift build --traits URLSession` turns it on.
    traits: [
        .trait(name: "URLSession", description: "Build the URLSession loader beside libcurl's (IMGVIEW_HTTP=urlsession)."),
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
    ],
    targets: [
        // C libraries from Debian, each imported by exactly one Swift module.
        .systemLibrary(name: "CNCurses", providers: [.apt(["libncurses-dev"])]),
        .systemLibrary(name: "CJPEG", providers: [.apt(["libjpeg62-turbo-dev"])]),
        .systemLibrary(name: "CSPNG", providers: [.apt(["libspng-dev"])]),
        .systemLibrary(name: "CGIF", providers: [.apt(["libgif-dev"])]),
        .systemLibrary(name: "CWebP", providers: [.apt(["libwebp-dev"])]),
        .systemLibrary(name: "CAVIF", providers: [.apt(["libavif-dev"])]),
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CBrotli", providers: [.apt(["libbrotli-dev"])]),
        // Opened on first use (no `link` line): the headers give the types, the library is found at run time.
        .systemLibrary(name: "CTIFF", providers: [.apt(["libtiff-dev"])]),
        .systemLibrary(name: "CHEIF", providers: [.apt(["libheif-dev"])]),
        .systemLibrary(name: "CJXL", providers: [.apt(["libjxl-dev"])]),
        .systemLibrary(name: "CMalloc"),
        .systemLibrary(name: "CLCMS", providers: [.apt(["liblcms2-dev"])]),
        // Declared by hand (librsvg's headers need pkg-config's paths): nothing to install to build.
        .systemLibrary(name: "CRSVG"),
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // libxml2's HTML push parser behind an interface of plain C types: the only code that
        // includes libxml2's headers (libxml2-dev), resolving its functions from a handle opened at
        // run time, so nothing links libxml2 or its ICU.
        .target(name: "CLibXML2", cSettings: [.unsafeFlags(["-I/usr/include/libxml2"])]),
        // An HEVC decoder plugin for libheif over libde265 without worker threads, resolving both
        // libraries' functions from handles opened at run time: the only code that includes libde265's headers.
        .target(name: "CDe265"),

        // The core, in layers: each target may import only those listed before it, so the compiler
        // refuses an arrow back up (DECISIONS.md opens with the map). None imports C or ncurses.
        // Text, numbers, dates, locks, files and the terminal's escape sequences.
        .target(
            name: "ImgviewSupport",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // Images without I/O: recognising a file and reading its header (the probe), the decoder
        // protocols and pixels, rendering to cells, the pixel protocols' encoders, playback timing.
        // (ImgviewCompression: the Brotli-compressed EXIF box of a JPEG XL.)
        .target(
            name: "ImgviewImaging",
            dependencies: ["ImgviewSupport", "ImgviewCompression", .product(name: "SystemPackage", package: "swift-system")]),
        // What the terminal can draw: the query, its answers, the environment, the mode `auto` picks.
        .target(name: "ImgviewTerminalDetection", dependencies: ["ImgviewSupport", "ImgviewImaging"]),
        // Where bytes come from and go: the transport protocol, the fetcher, the disk and memory
        // caches, outputs, catalogs and local folders.
        .target(
            name: "ImgviewFetching",
            dependencies: [
                "ImgviewSupport", "ImgviewImaging",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // The one road from a URL to a preview: fetch, probe, decode and render stages, shared and kept.
        .target(
            name: "ImgviewPipeline",
            dependencies: ["ImgviewSupport", "ImgviewImaging", "ImgviewFetching", .product(name: "SystemPackage", package: "swift-system")]),
        // The browser's logic and screen, testable without a terminal: presenter, state, frames, input.
        .target(
            name: "ImgviewBrowser",
            dependencies: ["ImgviewSupport", "ImgviewImaging", "ImgviewTerminalDetection", "ImgviewFetching", "ImgviewPipeline"]
        ),
        // Image decoding (JPEG, PNG and APNG, GIF, WebP, AVIF; BMP, ICO and QOI in Swift): the only
        // importer of CJPEG, CSPNG, CGIF, CWebP and CAVIF; no C type leaves it. (zlib: the CRCs of
        // the PNG files it writes for each APNG frame.)
        .target(
            name: "ImgviewCodecs",
            dependencies: [
                "ImgviewSupport", "ImgviewImaging", "CJPEG", "CSPNG", "CGIF", "CWebP", "CAVIF", "CZlib", "CTIFF", "CHEIF", "CJXL", "CRSVG",
                "CLCMS", "CLibraryMessages", "CDe265",
            ],
            // libjpeg, opened at run time, finds the executable's hooks for its large allocations
            // and its backing store (JPEGLargeMemory.swift) only if they are exported: the linker
            // exported them by itself while libjpeg was linked, and the release link exports
            // nothing else.
            linkerSettings: [
                .unsafeFlags([
                    "-Xlinker", "--export-dynamic-symbol=jpeg_get_large", "-Xlinker", "--export-dynamic-symbol=jpeg_free_large",
                    "-Xlinker", "--export-dynamic-symbol=jpeg_open_backing_store",
                ])
            ]),
        // What C libraries print on C's stderr while a decode runs, captured per thread
        // (fopencookie, which Swift's Glibc does not declare); file descriptor 2 is never moved.
        .target(name: "CLibraryMessages"),
        // HTTP's content codings (gzip, deflate, brotli), decoded with a check that each stream
        // ended: the only importer of CZlib and CBrotli (libbrotlidec opened on first use).
        .target(name: "ImgviewCompression", dependencies: ["ImgviewSupport", "CZlib", "CBrotli"]),
        // HTTP(S) through libcurl directly: the only importer of CCurl.
        .target(
            name: "ImgviewCurl",
            dependencies: [
                "ImgviewSupport", "ImgviewFetching", "ImgviewCompression", "CCurl",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]),
        // HTTP(S) through Foundation's URLSession, the system's own client where there is one.
        .target(
            name: "ImgviewURLSession",
            dependencies: ["ImgviewSupport", "ImgviewFetching", .product(name: "HTTPTypes", package: "swift-http-types")]),
        // Web pages read with libxml2's HTML parser, opened on first use: the only importer of CLibXML2.
        .target(name: "ImgviewHTML", dependencies: ["ImgviewSupport", "ImgviewFetching", "CLibXML2"]),
        // The process's life: the one signal handler, requests to end, job control, the terminal
        // put back and temporary folders removed on every exit path.
        .target(
            name: "ImgviewProcess", dependencies: ["ImgviewSupport", "CMalloc", .product(name: "SystemPackage", package: "swift-system")]),
        // The config file: the only importer of TOMLKit (toml++ underneath); plain values leave it.
        .target(
            name: "ImgviewConfig",
            dependencies: [
                "ImgviewSupport", .product(name: "TOMLKit", package: "TOMLKit"), .product(name: "SystemPackage", package: "swift-system"),
            ]),
        // The browser on a real terminal: the only importer of CNCurses.
        .target(
            name: "ImgviewTerminal",
            dependencies: [
                "ImgviewSupport", "ImgviewImaging", "ImgviewTerminalDetection", "ImgviewBrowser", "ImgviewProcess", "CNCurses",
                .product(name: "SystemPackage", package: "swift-system"),
            ]),
        // The loopback HTTP server behind `serve`, `demo` and the tests, with fault injection.
        .target(
            name: "ImgviewServer",
            dependencies: [
                "ImgviewSupport", "ImgviewImaging", "ImgviewFetching", "ImgviewCompression",
                .product(name: "FlyingFox", package: "FlyingFox"), .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // Argument parsing and wiring, nothing else.
        .executableTarget(
            name: "imgview",
            dependencies: [
                "ImgviewSupport", "ImgviewImaging", "ImgviewTerminalDetection", "ImgviewFetching", "ImgviewPipeline",
                "ImgviewBrowser", "ImgviewCodecs", "ImgviewTerminal", "ImgviewProcess", "ImgviewCurl", "ImgviewConfig", "ImgviewHTML",
                .target(name: "ImgviewURLSession", condition: .when(traits: ["URLSession"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            // Only what a file imports is visible in it: TOMLKit imports all of Foundation, and
            // without this a call such as `contains("://")` quietly takes Foundation's overload,
            // which links Foundation and ICU into the static binary (DECISIONS.md, "The config file").
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
        ),
        // The loopback server as a program of its own, which `serve` runs and `demo` starts beside
        // the browser: FlyingFox needs all of Foundation, which the `imgview` binary does without.
        .executableTarget(
            name: "imgview-server",
            dependencies: ["ImgviewServer", "ImgviewSupport", "ImgviewProcess", .product(name: "SystemPackage", package: "swift-system")]),

        // libFuzzer targets over everything imgview reads from outside (scripts/fuzz.sh builds them).
        .target(
            name: "ImgviewFuzzing",
            dependencies: [
                "ImgviewSupport", "ImgviewImaging", "ImgviewTerminalDetection", "ImgviewFetching", "ImgviewBrowser", "ImgviewCodecs",
                "ImgviewConfig", "ImgviewCompression", "ImgviewHTML",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]),
        .executableTarget(name: "imgview-fuzz", dependencies: ["ImgviewFuzzing"]),

        // What every test target shares: the polling helper, the loopback server, the fixtures, a
        // scheduler a test drains by hand.
        .target(
            name: "ImgviewTestSupport",
            dependencies: [
                "ImgviewSupport", "ImgviewImaging", "ImgviewFetching", "ImgviewPipeline", "ImgviewBrowser", "ImgviewServer",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tests/ImgviewTestSupport",
            // The generator of issue 26's memory files, which the tests and bench/bench_hardening.py run.
            exclude: ["Generators"]),
        // Snapshots are read from the source tree (and re-recorded there), not bundled.
        .testTarget(
            name: "ImgviewCoreTests",
            dependencies: [
                "ImgviewSupport", "ImgviewImaging", "ImgviewTerminalDetection", "ImgviewFetching", "ImgviewPipeline",
                "ImgviewBrowser", "ImgviewServer", "ImgviewCurl", "ImgviewTestSupport", "ImgviewConfig", "ImgviewCompression",
                "ImgviewHTML",
                .target(name: "ImgviewURLSession", condition: .when(traits: ["URLSession"])),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            exclude: ["Snapshots"]),
        .testTarget(
            name: "ImgviewCodecsTests",
            dependencies: [
                "ImgviewCodecs", "CAVIF", "CTIFF", "CGIF", "CWebP", "CLibraryMessages", "ImgviewSupport", "ImgviewImaging",
                "ImgviewFetching",
                "ImgviewPipeline",
                "ImgviewCurl", "ImgviewTestSupport",
            ],
            exclude: ["Fixtures", "Snapshots"]),
        // Replays the fuzz corpus and every input that once crashed, read from the source tree.
        .testTarget(name: "ImgviewFuzzingTests", dependencies: ["ImgviewFuzzing"], exclude: ["Corpus"]),
        .testTarget(
            name: "ImgviewServerTests",
            dependencies: ["ImgviewServer", "ImgviewSupport", "ImgviewImaging", "ImgviewTestSupport"]),
        // Runs the built `imgview` binary and checks stdout, stderr and exit codes.
        .testTarget(
            name: "ImgviewCLITests",
            dependencies: [
                "ImgviewServer", "ImgviewSupport", "ImgviewImaging", "ImgviewFetching", "ImgviewPipeline", "ImgviewCodecs",
                "ImgviewTestSupport", .target(name: "imgview"),
                // InfoPlainArgumentsTests compares a command made without the parser with the parser's.
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // The screenshot similarity script the emulator tests run with python3, and the hostile
            // terminal the reply tests play under a pty.
            exclude: ["Emulators", "Terminals"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
