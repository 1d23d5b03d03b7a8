import ImgviewImaging
import ImgviewSupport

/// Turns decoded pixels into sRGB, the one colour space the renderer and every terminal assume,
/// from the space their file declares (`EmbeddedColorProfile`): Display P3 from phones, Adobe
/// RGB from cameras, BT.2020, a grey profile, QOI's linear light.
///
/// It runs on the decoder's output, after its own whole-number reduction (so on at most about
/// twice the preview's pixels, not a 12-megapixel photo) and before the renderer scales
/// (DECISIONS.md, "Colour management"). Transforms are made once per profile and kept.
public enum ColorManagement {
    /// Converts `image` (every frame of an animation) from `profile` to sRGB. A profile that
    /// cannot be used leaves the pixels as they are, with a warning saying why.
    public static func convert(_ image: inout DecodedImage, from profile: EmbeddedColorProfile) {
        guard !profile.isPlainSRGB else { return }
        switch transforms.transform(for: profile, make: ColorTransform.make(from:)) {
        case .success(let transform):
            if case .identity = transform.kind { return }
            transform.apply(to: &image.pixels)
            if var animation = image.animation {
                for index in animation.frames.indices { transform.apply(to: &animation.frames[index].pixels) }
                image.animation = animation
            }
        case .failure(let refusal):
            let reason =
                switch refusal {
                case .library(let unavailable): "colours not converted from \(profile.name): \(unavailable.summary)"
                case .damaged: "colours shown as sRGB: the embedded ICC profile is damaged"
                case .unsupported: "colours not converted: \(profile.name) is not supported"
                }
            image.warning = image.warning.map { "\($0); \(reason)" } ?? reason
        }
    }

    /// Turns a CMYK (or YCCK) JPEG's ink into sRGB, in place: `pixels` holds C, M, Y and K per
    /// pixel, `inverted` when 255 means no ink (Adobe's APP14 marker says so; Photoshop,
    /// ImageMagick, Pillow and libjpeg write CMYK JPEGs so). Through the file's CMYK ICC profile when it has
    /// one Little CMS can use; else by the formula browsers use for CMYK without a profile
    /// (each of R, G, B is what the ink and black leave of white), with a warning saying why
    /// when a profile was there but could not be used (DECISIONS.md, "CMYK JPEG").
    package static func convertCMYK(_ pixels: inout PixelBuffer, inverted: Bool, profile: EmbeddedColorProfile?) -> String? {
        guard case .icc(let bytes) = profile else {
            deviceCMYK(&pixels, inverted: inverted)
            return nil
        }
        switch cmykTransforms.transform(
            for: CMYKKey(profile: bytes, inverted: inverted), make: { ColorTransform.make(fromCMYK: $0.profile, inverted: $0.inverted) })
        {
        case .success(let transform):
            transform.apply(to: &pixels)
            return nil
        case .failure(let refusal):
            deviceCMYK(&pixels, inverted: inverted)
            return switch refusal {
            case .library(let unavailable): "CMYK shown without its profile: \(unavailable.summary)"
            case .damaged: "CMYK shown without its profile: the embedded ICC profile is damaged"
            case .unsupported: "CMYK shown without its profile: the embedded one is \(profile?.name ?? "an ICC profile"), not CMYK"
            }
        }
    }

    /// CMYK without a profile, as browsers draw it: R = (1 − C)(1 − K), and so on, alpha opaque.
    package static func deviceCMYK(_ pixels: inout PixelBuffer, inverted: Bool) {
        /// What an ink leaves of white: 255 for none of it.
        func left(_ byte: UInt8) -> UInt32 { inverted ? UInt32(byte) : 255 - UInt32(byte) }
        pixels.bytes.withUnsafeMutableBufferPointer { buffer in
            for index in stride(from: 0, to: buffer.count - 3, by: 4) {
                let k = left(buffer[index + 3])
                buffer[index] = UInt8((left(buffer[index]) * k + 127) / 255)
                buffer[index + 1] = UInt8((left(buffer[index + 1]) * k + 127) / 255)
                buffer[index + 2] = UInt8((left(buffer[index + 2]) * k + 127) / 255)
                buffer[index + 3] = 255
            }
        }
    }

    private static let transforms = TransformCache<EmbeddedColorProfile>()
    private static let cmykTransforms = TransformCache<CMYKKey>()

    /// A CMYK profile and how the ink is stored: what a CMYK transform is made for.
    private struct CMYKKey: Hashable {
        var profile: [UInt8]
        var inverted: Bool
    }

    /// The transforms made so far, by profile: making one costs more than converting a preview, and the browser meets
    /// the same camera's profile over and over. Bounded, as profiles come from files.
    private final class TransformCache<Key: Hashable>: @unchecked Sendable {
        private let lock = ThreadLock()
        private var made: [Key: Result<ColorTransform, ColorTransform.Refusal>] = [:]
        private static var capacity: Int { 32 }

        func transform(
            for key: Key, make: (Key) -> Result<ColorTransform, ColorTransform.Refusal>
        ) -> Result<ColorTransform, ColorTransform.Refusal> {
            if let known = lock.withLock({ made[key] }) { return known }
            let result = make(key)
            lock.withLock {
                if made.count >= Self.capacity { made.removeAll() }
                made[key] = result
            }
            return result
        }
    }
}
