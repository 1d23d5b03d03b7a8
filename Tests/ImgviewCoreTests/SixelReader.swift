@testable import ImgviewImaging

/// A reference reader of sixel sequences, as a VT340 draws them: what the tests check the
/// encoder's output against.
struct SixelReader {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    var width = 0
    var height = 0
    /// Registers as set, in percent converted back to 8 bits.
    var registers: [Int: RGBColor] = [:]
    /// Drawn pixels; nil where nothing was drawn.
    var pixels: [RGBColor?] = []

    init(_ sequence: [UInt8]) throws {
        guard sequence.starts(with: Array("\u{1B}P0;1;0q".utf8)), sequence.suffix(2) == [0x1B, UInt8(ascii: "\\")] else {
            throw Failure(description: "not a DCS q … ST sequence")
        }
        var position = 8
        let end = sequence.count - 2
        func number() -> Int {
            var value = 0
            while position < end, (48...57).contains(sequence[position]) {
                value = value * 10 + Int(sequence[position] - 48)
                position += 1
            }
            return value
        }
        func numbers() -> [Int] {
            var values = [number()]
            while position < end, sequence[position] == UInt8(ascii: ";") {
                position += 1
                values.append(number())
            }
            return values
        }
        var x = 0
        var band = 0
        var current = 0
        while position < end {
            let byte = sequence[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                let values = numbers()
                guard values.count == 4, values[0] == 1, values[1] == 1 else { throw Failure(description: "raster attributes \(values)") }
                (width, height) = (values[2], values[3])
                pixels = Array(repeating: nil, count: width * height)
            case UInt8(ascii: "#"):
                let values = numbers()
                if values.count == 5 {
                    guard values[1] == 2 else { throw Failure(description: "colour space \(values[1])") }
                    func byte(_ percent: Int) -> UInt8 { UInt8((percent * 255 + 50) / 100) }
                    registers[values[0]] = RGBColor(red: byte(values[2]), green: byte(values[3]), blue: byte(values[4]))
                }
                current = values[0]
                guard registers[current] != nil else { throw Failure(description: "register \(current) used before it is set") }
            case UInt8(ascii: "$"): x = 0
            case UInt8(ascii: "-"):
                x = 0
                band += 1
            case UInt8(ascii: "!"):
                let count = number()
                guard position < end else { throw Failure(description: "run without a character") }
                let character = sequence[position]
                position += 1
                for _ in 0..<count { try draw(character, x: &x, band: band, colour: current) }
            case 63...126:
                try draw(byte, x: &x, band: band, colour: current)
            default:
                throw Failure(description: "unexpected byte \(byte) at \(position - 1)")
            }
        }
    }

    private mutating func draw(_ character: UInt8, x: inout Int, band: Int, colour: Int) throws {
        let bits = character - 63
        for row in 0..<6 where bits & (1 << row) != 0 {
            let y = band * 6 + row
            guard x < width, y < height else { throw Failure(description: "pixel \(x),\(y) outside \(width)×\(height)") }
            guard pixels[y * width + x] == nil else { throw Failure(description: "pixel \(x),\(y) drawn twice") }
            pixels[y * width + x] = registers[colour]
        }
        x += 1
    }
}
