internal import CLCMS
import ImgviewImaging
import ImgviewSupport

/// One colour space's conversion to sRGB, made by Little CMS from a profile, and shared by
/// every image that declares that profile (`cmsFLAGS_NOCACHE` makes it safe across threads).
final class ColorTransform: @unchecked Sendable {
    /// What is done to pixels of this profile.
    enum Kind {
        /// They already are sRGB, or as near as makes no difference (within 1 of 255 on a grid).
        case identity
        /// Red, green and blue (alpha copied), in place.
        case rgba(UnsafeMutableRawPointer)
        /// A grey profile: each grey level (read from red) becomes a colour from this table.
        case grayTable([UInt8])
        /// A CMYK profile: each pixel's four bytes are ink (C, M, Y, K) and become R, G, B, opaque.
        case cmyk(UnsafeMutableRawPointer)
    }

    let kind: Kind
    private let library: imgview_lcms

    private init(kind: Kind, library: imgview_lcms) {
        self.kind = kind
        self.library = library
    }

    deinit {
        switch kind {
        case .rgba(let handle), .cmyk(let handle): library.cmsDeleteTransform(handle)
        case .identity, .grayTable: break
        }
    }

    /// Why a profile's pixels are left as they are.
    enum Refusal: Error, Equatable {
        /// lcms cannot be loaded.
        case library(SharedLibrary.Unavailable)
        /// lcms cannot read the profile or link it to sRGB: it is damaged.
        case damaged
        /// A space that cannot be converted after decoding (CMYK, Lab) or code points with no
        /// curve lcms can build (PQ, HLG) or unknown primaries.
        case unsupported
    }

    /// The transform from `profile` to sRGB.
    static func make(from profile: EmbeddedColorProfile) -> Result<ColorTransform, Refusal> {
        let library: imgview_lcms
        switch ColorLibrary.functions() {
        case .success(let table): library = table
        case .failure(let unavailable): return .failure(.library(unavailable))
        }
        let input: UnsafeMutableRawPointer?
        switch profile {
        case .icc(let bytes):
            guard let summary = ICCProfileSummary(bytes) else { return .failure(.damaged) }
            guard summary.space == .rgb || summary.space == .gray else { return .failure(.unsupported) }
            input = bytes.withUnsafeBytes { library.cmsOpenProfileFromMem($0.baseAddress, UInt32($0.count)) }
        case .cicp(let primaries, let transfer, _, _):
            guard let made = makeProfile(library, primaries: primaries, transfer: transfer) else { return .failure(.unsupported) }
            input = made
        }
        guard let input else { return .failure(.damaged) }
        defer { _ = library.cmsCloseProfile(input) }
        let output = library.cmsCreate_sRGBProfile()
        defer { if let output { _ = library.cmsCloseProfile(output) } }
        if library.cmsGetColorSpace(input).rawValue == imgview_lcms_gray_space {
            guard
                let handle = library.cmsCreateTransform(input, imgview_lcms_gray8, output, imgview_lcms_rgb8, UInt32(INTENT_PERCEPTUAL), 0)
            else { return .failure(.damaged) }
            defer { library.cmsDeleteTransform(handle) }
            let levels = (0...255).map { UInt8($0) }
            var colours = [UInt8](repeating: 0, count: 256 * 3)
            library.cmsDoTransform(handle, levels, &colours, 256)
            let isIdentity = (0..<256).allSatisfy { level in (0..<3).allSatisfy { abs(Int(colours[level * 3 + $0]) - level) <= 1 } }
            return .success(ColorTransform(kind: isIdentity ? .identity : .grayTable(colours), library: library))
        }
        guard library.cmsGetColorSpace(input).rawValue == imgview_lcms_rgb_space,
            let handle = library.cmsCreateTransform(
                input, imgview_lcms_rgba8, output, imgview_lcms_rgba8, UInt32(INTENT_PERCEPTUAL), imgview_lcms_flags)
        else { return .failure(.damaged) }
        let transform = ColorTransform(kind: .rgba(handle), library: library)
        return .success(transform.isIdentity ? ColorTransform(kind: .identity, library: library) : transform)
    }

    /// The transform from a CMYK ICC profile to sRGB, for ink values stored as `inverted` (255
    /// meaning no ink, as Adobe writes CMYK JPEGs) or plainly.
    static func make(fromCMYK bytes: [UInt8], inverted: Bool) -> Result<ColorTransform, Refusal> {
        let library: imgview_lcms
        switch ColorLibrary.functions() {
        case .success(let table): library = table
        case .failure(let unavailable): return .failure(.library(unavailable))
        }
        guard let summary = ICCProfileSummary(bytes) else { return .failure(.damaged) }
        guard summary.space == .cmyk else { return .failure(.unsupported) }
        guard let input = bytes.withUnsafeBytes({ library.cmsOpenProfileFromMem($0.baseAddress, UInt32($0.count)) }) else {
            return .failure(.damaged)
        }
        defer { _ = library.cmsCloseProfile(input) }
        let output = library.cmsCreate_sRGBProfile()
        defer { if let output { _ = library.cmsCloseProfile(output) } }
        // No alpha is copied: CMYK has none, and the fourth byte out is set opaque afterwards.
        guard library.cmsGetColorSpace(input).rawValue == imgview_lcms_cmyk_space,
            let handle = library.cmsCreateTransform(
                input, inverted ? imgview_lcms_cmyk8_inverted : imgview_lcms_cmyk8, output, imgview_lcms_rgba8, UInt32(INTENT_PERCEPTUAL),
                imgview_lcms_no_cache)
        else { return .failure(.damaged) }
        return .success(ColorTransform(kind: .cmyk(handle), library: library))
    }

    /// Converts `pixels` (RGBA, straight alpha; for a CMYK transform, ink) in place.
    func apply(to pixels: inout PixelBuffer) {
        switch kind {
        case .identity:
            break
        case .cmyk(let handle):
            let count = pixels.width * pixels.height
            pixels.bytes.withUnsafeMutableBufferPointer { buffer in
                // Four bytes in and four out per pixel: lcms reads each pixel before writing it.
                library.cmsDoTransform(handle, buffer.baseAddress, buffer.baseAddress, UInt32(count))
                for index in stride(from: 3, to: buffer.count, by: 4) { buffer[index] = 255 }
            }
        case .rgba(let handle):
            let count = pixels.width * pixels.height
            pixels.bytes.withUnsafeMutableBytes { buffer in
                library.cmsDoTransform(handle, buffer.baseAddress, buffer.baseAddress, UInt32(count))
            }
        case .grayTable(let colours):
            pixels.bytes.withUnsafeMutableBufferPointer { bytes in
                for index in stride(from: 0, to: bytes.count, by: 4) {
                    let level = Int(bytes[index]) * 3
                    bytes[index] = colours[level]
                    bytes[index + 1] = colours[level + 1]
                    bytes[index + 2] = colours[level + 2]
                }
            }
        }
    }

    /// Whether a grid of colours (every sixteenth level of each channel, and every grey) comes
    /// out within 1 of itself: an sRGB profile under another name (the HP one in many photos).
    private var isIdentity: Bool {
        var grid: [UInt8] = []
        for red in stride(from: 0, through: 255, by: 17) {
            for green in stride(from: 0, through: 255, by: 17) {
                for blue in stride(from: 0, through: 255, by: 17) { grid += [UInt8(red), UInt8(green), UInt8(blue), 255] }
            }
        }
        for level in 0...255 { grid += [UInt8(level), UInt8(level), UInt8(level), 255] }
        var pixels = PixelBuffer(width: grid.count / 4, height: 1, bytes: grid)
        apply(to: &pixels)
        return zip(grid, pixels.bytes).allSatisfy { abs(Int($0) - Int($1)) <= 1 }
    }

    /// An RGB profile for CICP code points: the primaries (BT.709/sRGB, BT.2020, DCI-P3, Display
    /// P3) with their white, and the curve (sRGB's, BT.709's as Chrome draws it, linear, gamma 2.2
    /// or 2.8); nil for what has no such form (PQ, HLG) or is not known.
    private static func makeProfile(_ library: imgview_lcms, primaries: Int, transfer: Int) -> UnsafeMutableRawPointer? {
        let d65 = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
        let (white, triple): (cmsCIExyY, cmsCIExyYTRIPLE)
        func xy(_ x: Double, _ y: Double) -> cmsCIExyY { cmsCIExyY(x: x, y: y, Y: 1) }
        switch primaries {
        case 1, 2: (white, triple) = (d65, cmsCIExyYTRIPLE(Red: xy(0.64, 0.33), Green: xy(0.30, 0.60), Blue: xy(0.15, 0.06)))
        case 9: (white, triple) = (d65, cmsCIExyYTRIPLE(Red: xy(0.708, 0.292), Green: xy(0.170, 0.797), Blue: xy(0.131, 0.046)))
        case 11:
            (white, triple) = (xy(0.314, 0.351), cmsCIExyYTRIPLE(Red: xy(0.680, 0.320), Green: xy(0.265, 0.690), Blue: xy(0.150, 0.060)))
        case 12: (white, triple) = (d65, cmsCIExyYTRIPLE(Red: xy(0.680, 0.320), Green: xy(0.265, 0.690), Blue: xy(0.150, 0.060)))
        default: return nil
        }
        let (type, parameters): (Int32, [Double])
        switch transfer {
        case 2, 13: (type, parameters) = (4, [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045])
        case 1, 6, 14, 15: (type, parameters) = (4, [1 / 0.45, 1 / 1.099, 0.099 / 1.099, 1 / 4.5, 0.081])
        case 8: (type, parameters) = (1, [1])
        case 4: (type, parameters) = (1, [2.2])
        case 5: (type, parameters) = (1, [2.8])
        default: return nil
        }
        guard let curve = library.cmsBuildParametricToneCurve(nil, type, parameters) else { return nil }
        defer { library.cmsFreeToneCurve(curve) }
        var whitePoint = white
        var primariesTriple = triple
        var curves: [OpaquePointer?] = [curve, curve, curve]
        return curves.withUnsafeMutableBufferPointer { library.cmsCreateRGBProfile(&whitePoint, &primariesTriple, $0.baseAddress) }
    }
}
