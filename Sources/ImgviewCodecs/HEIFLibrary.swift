internal import CDe265
internal import CHEIF
import ImgviewImaging
import ImgviewSupport

/// libheif, opened the first time a HEIC image is read (`SharedLibrary`): it and the codecs it
/// links (libde265, x265, aom, dav1d) are a dozen files that no other command should load.
///
/// Opening it also registers our HEVC decoder (`CDe265`), which libheif then prefers to its own:
/// libde265 decodes on the calling thread instead of waiting on a worker that a damaged stream
/// can leave waiting forever (DECISIONS.md, "libde265 on the calling thread").
enum HEIFLibrary {
    static let soname = "libheif.so.1"
    static let package = "libheif1"
    static let decoderSoname = "libde265.so.0"
    static let decoderPackage = "libde265-0"

    private static let loaded = load(soname: soname, package: package, decoderSoname: decoderSoname, decoderPackage: decoderPackage)

    /// libheif's functions, or why they cannot be had (exit 7, naming the package to install).
    static func functions() throws(ImageDecodingError) -> imgview_heif {
        try loaded.get()
    }

    /// Opens `soname` and `decoderSoname` and registers the HEVC decoder with libheif, once; the
    /// tests point them at libraries that are not there.
    static func load(
        soname: String, package: String, decoderSoname: String, decoderPackage: String
    ) -> Result<imgview_heif, ImageDecodingError> {
        SharedLibrary.open(soname, package: package)
            .flatMap { heif in heif.functions(imgview_heif_load).map { (heif, $0) } }
            .flatMap { heif, table in
                SharedLibrary.open(decoderSoname, package: decoderPackage).flatMap { de265 in
                    var missing: UnsafePointer<CChar>?
                    guard let plugin = imgview_de265_plugin(heif.handle, de265.handle, &missing) else {
                        let name = missing.map { String(cString: $0) } ?? "a function"
                        let library = name.hasPrefix("heif_") ? heif : de265
                        return .failure(
                            SharedLibrary.Unavailable(soname: library.soname, package: library.package, reason: "it has no \(name)"))
                    }
                    let registered = table.heif_register_decoder_plugin(plugin)
                    guard registered.code == heif_error_Ok else {
                        return .failure(SharedLibrary.Unavailable(soname: soname, package: package, reason: "it refused our HEVC decoder"))
                    }
                    return .success(table)
                }
            }
            .mapError { .libraryMissing(.heic, $0) }
    }
}
