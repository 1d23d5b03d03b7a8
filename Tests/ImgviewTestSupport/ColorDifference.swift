import Foundation

/// CIEDE2000 between 8-bit sRGB colours (D65 white), the measure issue 30 states its colour
/// budget in: about 1 is a difference a trained eye just sees, 2 is what the budget allows.
/// Checked against Sharma, Wu and Dalal's published pairs (ColorDifferenceTests).
public enum ColorDifference {
    /// CIE L*a*b* of an sRGB colour.
    public static func lab(_ red: UInt8, _ green: UInt8, _ blue: UInt8) -> (l: Double, a: Double, b: Double) {
        func linear(_ value: UInt8) -> Double {
            let v = Double(value) / 255
            return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
        }
        let (r, g, b) = (linear(red), linear(green), linear(blue))
        let x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
        let y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
        let z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883
        func f(_ t: Double) -> Double { t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116 }
        return (116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))
    }

    /// ΔE00 between two L*a*b* colours.
    public static func deltaE2000(_ one: (l: Double, a: Double, b: Double), _ two: (l: Double, a: Double, b: Double)) -> Double {
        let c1 = (one.a * one.a + one.b * one.b).squareRoot()
        let c2 = (two.a * two.a + two.b * two.b).squareRoot()
        let meanC = (c1 + c2) / 2
        let g = 0.5 * (1 - (pow(meanC, 7) / (pow(meanC, 7) + pow(25, 7))).squareRoot())
        let a1 = (1 + g) * one.a
        let a2 = (1 + g) * two.a
        let cp1 = (a1 * a1 + one.b * one.b).squareRoot()
        let cp2 = (a2 * a2 + two.b * two.b).squareRoot()
        func hue(_ b: Double, _ a: Double) -> Double {
            guard a != 0 || b != 0 else { return 0 }
            let angle = atan2(b, a) * 180 / .pi
            return angle < 0 ? angle + 360 : angle
        }
        let h1 = hue(one.b, a1)
        let h2 = hue(two.b, a2)
        let deltaL = two.l - one.l
        let deltaC = cp2 - cp1
        var deltaH = 0.0
        if cp1 * cp2 != 0 {
            deltaH = h2 - h1
            if deltaH > 180 { deltaH -= 360 } else if deltaH < -180 { deltaH += 360 }
        }
        let deltaBigH = 2 * (cp1 * cp2).squareRoot() * sin(deltaH * .pi / 360)
        let meanL = (one.l + two.l) / 2
        let meanCp = (cp1 + cp2) / 2
        var meanH = h1 + h2
        if cp1 * cp2 != 0 {
            if abs(h1 - h2) <= 180 {
                meanH /= 2
            } else {
                meanH = h1 + h2 < 360 ? (h1 + h2 + 360) / 2 : (h1 + h2 - 360) / 2
            }
        }
        let radians = { (degrees: Double) in degrees * .pi / 180 }
        let t =
            1 - 0.17 * cos(radians(meanH - 30)) + 0.24 * cos(radians(2 * meanH)) + 0.32 * cos(radians(3 * meanH + 6)) - 0.20
            * cos(radians(4 * meanH - 63))
        let deltaTheta = 30 * exp(-pow((meanH - 275) / 25, 2))
        let rc = 2 * (pow(meanCp, 7) / (pow(meanCp, 7) + pow(25, 7))).squareRoot()
        let sl = 1 + 0.015 * pow(meanL - 50, 2) / (20 + pow(meanL - 50, 2)).squareRoot()
        let sc = 1 + 0.045 * meanCp
        let sh = 1 + 0.015 * meanCp * t
        let rt = -sin(radians(2 * deltaTheta)) * rc
        let terms = (deltaL / sl, deltaC / sc, deltaBigH / sh)
        return (terms.0 * terms.0 + terms.1 * terms.1 + terms.2 * terms.2 + rt * terms.1 * terms.2).squareRoot()
    }

    /// The mean ΔE00 over two lists of colours of the same length (RGB triples, or RGBA bytes with `stride` 4).
    public static func meanDeltaE(_ one: [UInt8], _ two: [UInt8], stride: Int) -> Double {
        precondition(one.count == two.count && one.count % stride == 0 && !one.isEmpty)
        var total = 0.0
        for index in Swift.stride(from: 0, to: one.count, by: stride) {
            total += deltaE2000(lab(one[index], one[index + 1], one[index + 2]), lab(two[index], two[index + 1], two[index + 2]))
        }
        return total / Double(one.count / stride)
    }
}
