/// An opaque image in linear-light RGB floats: what the scaler produces and the cell renderers read.
public struct LinearImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// Interleaved red, green, blue; `width * height * 3` values in 0...1.
    public var values: [Float]

    public init(width: Int, height: Int, values: [Float]) {
        precondition(values.count == width * height * 3, "linear image size mismatch")
        self.width = width
        self.height = height
        self.values = values
    }

    public func color(x: Int, y: Int) -> LinearColor {
        let index = (y * width + x) * 3
        return LinearColor(red: values[index], green: values[index + 1], blue: values[index + 2])
    }
}
