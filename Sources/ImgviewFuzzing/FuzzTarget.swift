import ImgviewCodecs

/// The inputs imgview takes from places it does not control, each one a libFuzzer target.
///
/// A target returns normally for every input, good or bad; a crash or a failed `precondition`
/// is a finding. The same bodies run under libFuzzer (`scripts/fuzz.sh`) and over the saved
/// corpus and regression inputs in the test suite, so a fixed crash stays fixed.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// Bytes from a server or a file, as an image: sniffing, header reading, EXIF, decoding, rendering.
    case image
    /// A catalog file or page.
    case catalog
    /// A response's status line and headers, as freshness, retries, error text and the cache see them.
    case httpMetadata = "http-metadata"
    /// A cache entry's metadata file, as found on disk (possibly damaged or written by someone else).
    case cacheEntry = "cache-entry"
    /// The cache's size ledger (`v1/size`), as found on disk: torn, marked, another boot's, or written by hand.
    case cacheLedger = "cache-ledger"
    /// GIF bytes straight to the GIF decoder: composition, interlace, disposal, loops, frame limits.
    case gif
    /// WebP bytes straight to the WebP decoder: stills (incremental), animations, truncation.
    case webp
    /// AVIF bytes straight to the AVIF decoder: the container, sequences, transforms.
    case avif
    /// BMP bytes straight to the bitmap decoder (written in Swift, so fully coverage-guided).
    case bmp
    /// A web page, as `get --page` reads it: libxml2's HTML parser, then the images taken from it.
    case webPage = "web-page"
    /// QOI bytes straight to the QOI decoder (Swift).
    case qoi
    /// Icon and cursor bytes straight to the ICO decoder: the directory walk, bitmaps with masks, PNG pictures.
    case ico
    /// Animated PNG bytes straight to the PNG decoder: the chunk walk, frame files, composing, disposal.
    case apng
    /// TIFF bytes to the TIFF decoder: the Swift directory walk, then libtiff from memory, in bands.
    case tiff
    /// HEIF bytes to the HEIC decoder: the coded-size check, libheif and libde265 (not coverage-guided).
    case heic
    /// JPEG XL bytes to libjxl through the decoder (not coverage-guided).
    case jxl
    /// SVG text to the pre-scan, then librsvg, drawing at most 64×64 (only the scan is coverage-guided).
    case svg
    /// An ICC profile, or a JPEG, PNG, WebP, TIFF or HEIF that carries one: naming it, finding
    /// it, converting pixels with it through Little CMS.
    case colorProfile = "color-profile"
    /// What a terminal sends back while the detection query is out: answers, keys, garbage,
    /// arriving over time against the query's deadline.
    case terminalReplies = "terminal-replies"
    /// Bytes reaching the browser as keys: typed keys, escape sequences, noise.
    case browserKeys = "browser-keys"
    /// A config file (`~/.config/imgview/config.toml`): TOML, then the settings' checks.
    case config
    /// A body in gzip, deflate or brotli, read by reads: whole only when the coding ended.
    case contentCoding = "content-coding"
    /// A URL as typed or found in a catalog, and a path's bytes as a file URL.
    case userText = "user-text"

    /// Runs the target on one input.
    public func run(_ bytes: [UInt8]) {
        switch self {
        case .image: ImageFuzzing.run(bytes)
        case .catalog: CatalogFuzzing.run(bytes)
        case .httpMetadata: HTTPMetadataFuzzing.run(bytes)
        case .cacheEntry: CacheEntryFuzzing.run(bytes)
        case .cacheLedger: CacheLedgerFuzzing.run(bytes)
        case .gif: FormatFuzzing.run(bytes, with: GIFDecoder(), format: .gif)
        case .webp: FormatFuzzing.run(bytes, with: WebPDecoder(), format: .webp)
        case .avif: FormatFuzzing.run(bytes, with: AVIFDecoder(), format: .avif)
        case .bmp: FormatFuzzing.run(bytes, with: BMPDecoder(), format: .bmp)
        case .qoi: FormatFuzzing.run(bytes, with: QOIDecoder(), format: .qoi)
        case .ico: FormatFuzzing.run(bytes, with: ICODecoder(), format: .ico)
        case .apng: FormatFuzzing.run(bytes, with: PNGDecoder(), format: .png)
        case .tiff: FormatFuzzing.run(bytes, with: TIFFDecoder(), format: .tiff)
        case .heic: FormatFuzzing.run(bytes, with: HEIFDecoder(), format: .heic)
        case .jxl: FormatFuzzing.run(bytes, with: JXLDecoder(), format: .jxl)
        // librsvg's filters cost time by the pixel, and nothing can stop it: small drawings only.
        case .svg: FormatFuzzing.run(bytes, with: SVGDecoder(), format: .svg, maxPixelCount: 64 * 64)
        case .colorProfile: ColorProfileFuzzing.run(bytes)
        case .terminalReplies: TerminalReplyFuzzing.run(bytes)
        case .webPage: WebPageFuzzing.run(bytes)
        case .browserKeys: BrowserKeyFuzzing.run(bytes)
        case .config: ConfigFuzzing.run(bytes)
        case .contentCoding: ContentCodingFuzzing.run(bytes)
        case .userText: UserTextFuzzing.run(bytes)
        }
    }
}
