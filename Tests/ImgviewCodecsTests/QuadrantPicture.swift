import Testing

@testable import ImgviewImaging

/// The 16×12 picture most fixtures show: top left, top right and bottom half in three colours.
enum QuadrantPicture {
    typealias Colour = (Int, Int, Int)
    static let red: Colour = (255, 0, 0)
    static let green: Colour = (0, 255, 0)
    static let blue: Colour = (0, 0, 255)

    /// The picture's colours in each frame of the `anim.*` fixtures: each turns one step.
    static let animationFrames: [(Colour, Colour, Colour)] = [(red, green, blue), (green, blue, red), (blue, red, green)]

    static func near(_ pixel: (UInt8, UInt8, UInt8, UInt8), _ expected: Colour) -> Bool {
        abs(Int(pixel.0) - expected.0) < 40 && abs(Int(pixel.1) - expected.1) < 40 && abs(Int(pixel.2) - expected.2) < 40
    }

    /// Checks a point well inside each part; with `transparentBottom`, the bottom half must be transparent instead.
    static func expect(
        _ pixels: PixelBuffer, colours: (Colour, Colour, Colour) = (red, green, blue), transparentBottom: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(pixels.width == 16 && pixels.height == 12, sourceLocation: sourceLocation)
        guard pixels.width == 16 && pixels.height == 12 else { return }
        #expect(near(pixels.pixel(x: 2, y: 2), colours.0), "top left", sourceLocation: sourceLocation)
        #expect(near(pixels.pixel(x: 13, y: 2), colours.1), "top right", sourceLocation: sourceLocation)
        #expect(pixels.pixel(x: 2, y: 2).3 == 255, sourceLocation: sourceLocation)
        if transparentBottom {
            #expect(pixels.pixel(x: 5, y: 9).3 == 0, "bottom is transparent", sourceLocation: sourceLocation)
        } else {
            #expect(near(pixels.pixel(x: 5, y: 9), colours.2), "bottom", sourceLocation: sourceLocation)
            #expect(pixels.pixel(x: 5, y: 9).3 == 255, sourceLocation: sourceLocation)
        }
    }

    /// The mean absolute difference per channel between two pictures of one size, alpha included.
    static func meanDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        precondition(a.width == b.width && a.height == b.height)
        let total = zip(a.bytes, b.bytes).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        return Double(total) / Double(a.bytes.count)
    }
}
