#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A colour in OKLab, a perceptually uniform space, so "nearest palette entry" means nearest to the eye.
struct OKLab: Sendable {
    var lightness: Float
    var a: Float
    var b: Float

    init(_ color: LinearColor) {
        let l = cbrtf(0.4122214708 * color.red + 0.5363325363 * color.green + 0.0514459929 * color.blue)
        let m = cbrtf(0.2119034982 * color.red + 0.6806995451 * color.green + 0.1073969566 * color.blue)
        let s = cbrtf(0.0883024619 * color.red + 0.2817188376 * color.green + 0.6299787005 * color.blue)
        lightness = 0.2104542553 * l + 0.7936177850 * m - 0.0040720468 * s
        a = 1.9779984951 * l - 2.4285922050 * m + 0.4505937099 * s
        b = 0.0259040371 * l + 0.7827717662 * m - 0.8086757660 * s
    }

    /// Squared distance, lightness weighted up: a preview lives or dies by its tones.
    func distanceSquared(to other: OKLab) -> Float {
        let dl = lightness - other.lightness
        let da = a - other.a
        let db = b - other.b
        return 2 * dl * dl + da * da + db * db
    }
}
