import ImgviewTestSupport
import Testing

/// The ΔE2000 the colour tests measure with, against Sharma, Wu and Dalal's published pairs
/// ("The CIEDE2000 color-difference formula", 2005, table 1).
@Suite("CIEDE2000")
struct ColorDifferenceTests {
    @Test(arguments: [
        ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
        ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
        ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
        ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
        ((2.0776, 0.0795, -1.1350), (0.9033, -0.0636, -0.5514), 0.9082),
    ])
    func matchesThePublishedPairs(one: (Double, Double, Double), two: (Double, Double, Double), expected: Double) {
        let difference = ColorDifference.deltaE2000((one.0, one.1, one.2), (two.0, two.1, two.2))
        #expect(abs(difference - expected) < 0.0001, "\(difference)")
    }

    @Test func sRGBWhiteIsLightnessOneHundred() {
        let white = ColorDifference.lab(255, 255, 255)
        #expect(abs(white.l - 100) < 0.01 && abs(white.a) < 0.01 && abs(white.b) < 0.01)
    }
}
