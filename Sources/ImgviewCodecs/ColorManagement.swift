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
        switch transforms.transform(for: profile) {
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

    private static let transforms = TransformCache()

    /// The transforms made so far, by profile: making one costs more than converting a preview, and the browser meets
    /// the same camera's profile over and over. Bounded, as profiles come from files.
    private final class TransformCache: @unchecked Sendable {
        private let lock = ThreadLock()
        private var made: [EmbeddedColorProfile: Result<ColorTransform, ColorTransform.Refusal>] = [:]
        private static let capacity = 32

        func transform(for profile: EmbeddedColorProfile) -> Result<ColorTransform, ColorTransform.Refusal> {
            if let known = lock.withLock({ made[profile] }) { return known }
            let result = ColorTransform.make(from: profile)
            lock.withLock {
                if made.count >= Self.capacity { made.removeAll() }
                made[profile] = result
            }
            return result
        }
    }
}
