#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Conversions between 8-bit sRGB and linear light, table-driven because the renderer does
/// millions of them per frame.
public enum SRGB {
    /// Linear light for each 8-bit sRGB value.
    public static let toLinear: [Float] = (0..<256).map { decode(Float($0) / 255) }

    /// 8-bit sRGB for linear light quantised to 4096 steps (fine enough for 8-bit output).
    private static let encodeTable: [UInt8] = (0...4095).map { UInt8((encode(Float($0) / 4095) * 255).rounded()) }
    /// Perceptual (sRGB-encoded) value in 0...1 for linear light quantised to 4096 steps: what
    /// `perceptual(fromLinear:)` reads, for loops that look up many values through one pointer.
    static let perceptualTable: [Float] = (0...4095).map { encode(Float($0) / 4095) }

    public static func decode(_ value: Float) -> Float {
        value <= 0.04045 ? value / 12.92 : powf((value + 0.055) / 1.055, 2.4)
    }

    public static func encode(_ value: Float) -> Float {
        let clamped = min(max(value, 0), 1)
        return clamped <= 0.0031308 ? clamped * 12.92 : 1.055 * powf(clamped, 1 / 2.4) - 0.055
    }

    /// Linear light (clamped to 0...1) as an 8-bit sRGB value.
    @inline(__always)
    public static func byte(fromLinear value: Float) -> UInt8 {
        encodeTable[Int(min(max(value, 0), 1) * 4095 + 0.5)]
    }

    /// Linear light (clamped to 0...1) as a perceptual 0...1 value, for error measures.
    @inline(__always)
    public static func perceptual(fromLinear value: Float) -> Float {
        perceptualTable[Int(min(max(value, 0), 1) * 4095 + 0.5)]
    }

    /// `perceptual(fromLinear:)` of four values at once, reading `table` (`perceptualTable`).
    @inline(__always)
    static func perceptual(fromLinear values: SIMD4<Float>, table: UnsafePointer<Float>) -> SIMD4<Float> {
        // Clamped lane by lane: SIMD's `clamped` is a generic call here, not two instructions.
        let clamped = SIMD4(min(max(values[0], 0), 1), min(max(values[1], 0), 1), min(max(values[2], 0), 1), min(max(values[3], 0), 1))
        let positions = clamped * 4095 + 0.5
        return SIMD4(table[Int(positions[0])], table[Int(positions[1])], table[Int(positions[2])], table[Int(positions[3])])
    }
}
