import ImgviewImaging
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Decodes a progressive JPEG at 1/8 scale from its DC coefficients alone, skipping the AC scans
/// without decoding them.
///
/// At 1/8 scale each 8×8 block becomes one pixel whose value is its DC coefficient, so the AC
/// scans — most of a progressive file — add nothing to a small preview. libjpeg cannot skip
/// them, and it keeps every coefficient of the image until the last scan (a camera's photo takes
/// tens of megabytes that way; DECISIONS.md, "Small previews of progressive JPEGs");
/// this keeps one number per block. Luma comes out as libjpeg's 1/8 decode has it (the same
/// arithmetic); chroma is each chroma block's DC, repeated over the luma blocks it covers, where
/// libjpeg would use a 2×2 transform. Handles 8-bit Huffman-coded progressive files with one
/// (grey) or three (YCbCr, or RGB per Adobe's marker) components and sampling factors of 1 or 2;
/// returns nil for anything else, and the caller decodes with libjpeg. See DECISIONS.md.
struct JPEGDCDecoder {
    /// The decoded pixels, and the first problem met in the data (it ended early, say), if any.
    struct Result {
        var pixels: PixelBuffer
        var warning: String?
        /// DC scans decoded to their end (a prefix of the file may end inside the next one).
        var completeScans: Int
    }

    private struct Component {
        let id: UInt8
        let horizontal: Int
        let vertical: Int
        let quantTable: Int
        /// Blocks per row and rows of blocks, padded to whole MCUs.
        var blocksWide = 0
        var blocksHigh = 0
        /// Blocks actually covering the component (non-interleaved scans visit only these).
        var usedWide = 0
        var usedHigh = 0
        var dc: [Int32] = []
    }

    /// Decodes `bytes`; nil when the file is not one this decoder handles.
    static func decode(_ bytes: Data, cancellation: CancellationFlag) throws(ImageDecodingError) -> Result? {
        let result: Swift.Result<Result?, ImageDecodingError> = bytes.withUnsafeBytes { raw in
            do throws(ImageDecodingError) {
                var decoder = JPEGDCDecoder(data: raw.bindMemory(to: UInt8.self))
                return .success(try decoder.run(cancellation: cancellation))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private let data: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var quantTables: [[Int32]] = Array(repeating: [], count: 4)
    private var dcTables: [HuffmanTable?] = Array(repeating: nil, count: 4)
    private var components: [Component] = []
    private var width = 0
    private var height = 0
    private var maxHorizontal = 1
    private var maxVertical = 1
    private var restartInterval = 0
    private var adobeTransform: Int?
    private var warning: String?
    private var completeScans = 0

    private init(data: UnsafeBufferPointer<UInt8>) {
        self.data = data
    }

    // MARK: Markers

    private mutating func run(cancellation: CancellationFlag) throws(ImageDecodingError) -> Result? {
        guard data.count >= 4 else { return nil }
        enum Stop {
            /// Not a file this decoder handles: libjpeg decodes it.
            case handOver
            /// The data ended inside a DC scan: what decoded so far.
            case early
            case failed(ImageDecodingError)
        }
        var sawFrame = false
        var stop: Stop?
        let end = JPEGMarkers.walk(BufferBytes(data)) { segment in
            let body = data[segment.payload]
            switch segment.marker {
            case 0xC2:
                guard readFrame(body) else { stop = .handOver; return .stop }
                sawFrame = true
            case 0xC0, 0xC1, 0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF, 0xDC:
                stop = .handOver  // not progressive Huffman, or DNL: libjpeg's job
                return .stop
            case 0xC4:
                guard readHuffmanTables(body) else { stop = .handOver; return .stop }
            case 0xDB:
                guard readQuantTables(body) else { stop = .handOver; return .stop }
            case 0xDD:
                guard let interval = BufferBytes(UnsafeBufferPointer(rebasing: body)).bigEndian16(at: 0) else {
                    stop = .handOver
                    return .stop
                }
                restartInterval = interval
            case 0xEE:
                let bytes = Array(body)
                if bytes.count >= 12, Array(bytes[0..<5]) == Array("Adobe".utf8) { adobeTransform = Int(bytes[11]) }
            case 0xDA:
                position = segment.payload.upperBound
                do throws(ImageDecodingError) {
                    guard sawFrame, let decoded = try readScan(body, cancellation: cancellation) else {
                        stop = .handOver
                        return .stop
                    }
                    guard decoded else {
                        stop = .early
                        return .stop
                    }
                } catch {
                    stop = .failed(error)
                    return .stop
                }
                // The scan was read (or stepped over) to the marker that follows it.
                return .resume(at: position)
            default:
                break  // APPn, COM and the like
            }
            return .next
        }
        switch (stop, end) {
        case (.failed(let error), _): throw error
        case (.handOver, _): return nil
        case (.early, _): return finishEarly()
        case (nil, .endOfImage): return sawFrame ? finish() : nil
        case (nil, _): return sawFrame ? finishEarly() : nil
        }
    }

    private mutating func readFrame(_ segment: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        let bytes = Array(segment)
        let reader = ArrayBytes(bytes)
        guard bytes.count >= 6, bytes[0] == 8, let height = reader.bigEndian16(at: 1), let width = reader.bigEndian16(at: 3) else {
            return false
        }
        (self.height, self.width) = (height, width)
        let count = Int(bytes[5])
        guard width > 0, height > 0, count == 1 || count == 3, bytes.count >= 6 + 3 * count, components.isEmpty else { return false }
        for index in 0..<count {
            let base = 6 + 3 * index
            let horizontal = Int(bytes[base + 1] >> 4)
            let vertical = Int(bytes[base + 1] & 15)
            let table = Int(bytes[base + 2])
            guard (1...2).contains(horizontal), (1...2).contains(vertical), table < 4 else { return false }
            components.append(Component(id: bytes[base], horizontal: horizontal, vertical: vertical, quantTable: table))
        }
        maxHorizontal = components.map(\.horizontal).max()!
        maxVertical = components.map(\.vertical).max()!
        let mcusWide = (width + 8 * maxHorizontal - 1) / (8 * maxHorizontal)
        let mcusHigh = (height + 8 * maxVertical - 1) / (8 * maxVertical)
        for index in components.indices {
            var component = components[index]
            component.blocksWide = mcusWide * component.horizontal
            component.blocksHigh = mcusHigh * component.vertical
            let sampledWidth = (width * component.horizontal + maxHorizontal - 1) / maxHorizontal
            let sampledHeight = (height * component.vertical + maxVertical - 1) / maxVertical
            component.usedWide = (sampledWidth + 7) / 8
            component.usedHigh = (sampledHeight + 7) / 8
            component.dc = [Int32](repeating: 0, count: component.blocksWide * component.blocksHigh)
            components[index] = component
        }
        return true
    }

    private mutating func readQuantTables(_ segment: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        let bytes = BufferBytes(UnsafeBufferPointer(rebasing: segment))
        var offset = 0
        while let first = bytes.byte(at: offset) {
            let precision = Int(first >> 4)
            let index = Int(first & 15)
            let size = precision == 0 ? 64 : 128
            // Stored in zig-zag order; only the first (DC) entry matters here.
            guard index < 4, precision <= 1, bytes.count - offset >= 1 + size,
                let dc = bytes.integer(at: offset + 1, size: precision + 1, bigEndian: true)
            else { return false }
            quantTables[index] = [Int32(dc)]
            offset += 1 + size
        }
        return true
    }

    private mutating func readHuffmanTables(_ segment: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        var bytes = Array(segment)[...]
        while let first = bytes.first {
            let tableClass = first >> 4
            let index = Int(first & 15)
            guard index < 4, tableClass <= 1, bytes.count >= 17 else { return false }
            let counts = Array(bytes[(bytes.startIndex + 1)..<(bytes.startIndex + 17)]).map(Int.init)
            let total = counts.reduce(0, +)
            guard bytes.count >= 17 + total else { return false }
            if tableClass == 0 {
                let symbols = Array(bytes[(bytes.startIndex + 17)..<(bytes.startIndex + 17 + total)])
                guard let table = HuffmanTable(counts: counts, symbols: symbols) else { return false }
                dcTables[index] = table
            }
            bytes = bytes.dropFirst(17 + total)
        }
        return true
    }

    // MARK: Scans

    /// Decodes a DC scan, or steps over an AC scan's data; nil for a scan this decoder cannot
    /// handle, false when the data ended inside the scan.
    private mutating func readScan(
        _ segment: Slice<UnsafeBufferPointer<UInt8>>, cancellation: CancellationFlag
    ) throws(ImageDecodingError) -> Bool? {
        let bytes = Array(segment)
        guard let count = bytes.first.map(Int.init), (1...components.count).contains(count), bytes.count >= 1 + 2 * count + 3 else {
            return nil
        }
        let start = bytes[1 + 2 * count]
        let approximation = bytes[3 + 2 * count]
        let high = Int(approximation >> 4)
        let low = Int(approximation & 15)
        guard start == 0 else { return skipEntropyData() }
        var scanComponents: [(index: Int, table: Int)] = []
        for selector in 0..<count {
            let id = bytes[1 + 2 * selector]
            guard let index = components.firstIndex(where: { $0.id == id }) else { return nil }
            let table = Int(bytes[2 + 2 * selector] >> 4)
            guard table < 4, high != 0 || dcTables[table] != nil else { return nil }
            scanComponents.append((index, table))
        }
        guard low < 14 else { return nil }
        var reader = BitReader(data: data, position: position)
        let complete = try decodeDC(scanComponents, refining: high != 0, shift: low, reader: &reader, cancellation: cancellation)
        position = JPEGMarkers.nextMarker(afterScanDataAt: reader.position, in: BufferBytes(data)) ?? data.count
        if complete { completeScans += 1 }
        return complete
    }

    private mutating func decodeDC(
        _ scan: [(index: Int, table: Int)], refining: Bool, shift: Int, reader: inout BitReader, cancellation: CancellationFlag
    ) throws(ImageDecodingError) -> Bool {
        var predictions = [Int32](repeating: 0, count: components.count)
        // The blocks of one MCU: every block of each component in an interleaved scan, one block otherwise.
        let units: [(component: Int, table: Int, x: Int, y: Int)]
        let unitsWide: Int
        let unitsHigh: Int
        if scan.count == 1 {
            let component = components[scan[0].index]
            units = [(scan[0].index, scan[0].table, 0, 0)]
            unitsWide = component.usedWide
            unitsHigh = component.usedHigh
        } else {
            units = scan.flatMap { entry in
                let component = components[entry.index]
                return (0..<component.vertical).flatMap { y in (0..<component.horizontal).map { x in (entry.index, entry.table, x, y) } }
            }
            unitsWide = components[0].blocksWide / components[0].horizontal
            unitsHigh = components[0].blocksHigh / components[0].vertical
        }
        var sinceRestart = 0
        for unitY in 0..<unitsHigh {
            if cancellation.isCancelled { throw .cancelled }
            for unitX in 0..<unitsWide {
                if restartInterval > 0, sinceRestart == restartInterval {
                    reader.restart()
                    predictions = predictions.map { _ in 0 }
                    sinceRestart = 0
                }
                sinceRestart += 1
                for unit in units {
                    let (horizontal, vertical, stride) =
                        (components[unit.component].horizontal, components[unit.component].vertical, components[unit.component].blocksWide)
                    let (x, y) = scan.count == 1 ? (unitX, unitY) : (unitX * horizontal + unit.x, unitY * vertical + unit.y)
                    let index = y * stride + x
                    if refining {
                        if reader.bit() == 1 { components[unit.component].dc[index] |= Int32(1) << shift }
                    } else {
                        guard let table = dcTables[unit.table] else { return false }
                        let size = table.decode(&reader)
                        guard size <= 16 else {
                            warning = warning ?? "Corrupt JPEG data: bad Huffman code"
                            return false
                        }
                        let difference = reader.receiveExtended(size)
                        predictions[unit.component] &+= difference
                        components[unit.component].dc[index] = predictions[unit.component] << shift
                    }
                }
                if reader.ranOut {
                    warning = warning ?? "Premature end of JPEG file"
                    return false
                }
            }
        }
        return true
    }

    /// Moves past an AC scan's entropy-coded data to the next marker; false when the data ends first.
    private mutating func skipEntropyData() -> Bool {
        guard let next = JPEGMarkers.nextMarker(afterScanDataAt: position, in: BufferBytes(data)) else {
            position = data.count
            return false
        }
        position = next
        return true
    }

    // MARK: Output

    private mutating func finishEarly() -> Result? {
        warning = warning ?? "Premature end of JPEG file"
        return finish()
    }

    /// Each block's DC as libjpeg's 1×1 inverse transform gives it, upsampled by repetition and
    /// turned into RGB with libjpeg's fixed-point tables.
    private func finish() -> Result? {
        guard components.allSatisfy({ !quantTables[$0.quantTable].isEmpty }) else { return nil }
        let outputWidth = (width + 7) / 8
        let outputHeight = (height + 7) / 8
        let planes = components.map { component -> [UInt8] in
            let quant = quantTables[component.quantTable][0]
            return component.dc.map { coefficient in
                // DESCALE(DC × Q, 3) then centred and clamped: libjpeg's jpeg_idct_1x1.
                let value = (Int(coefficient) * Int(quant) + 4) >> 3 + 128
                return UInt8(clamping: value)
            }
        }
        var bytes = [UInt8](repeating: 255, count: outputWidth * outputHeight * 4)
        let isRGB = components.count == 3 && adobeTransform == 0
        for y in 0..<outputHeight {
            for x in 0..<outputWidth {
                var samples: [Int] = []
                for (index, component) in components.enumerated() {
                    let blockX = min(x * component.horizontal / maxHorizontal, component.blocksWide - 1)
                    let blockY = min(y * component.vertical / maxVertical, component.blocksHigh - 1)
                    samples.append(Int(planes[index][blockY * component.blocksWide + blockX]))
                }
                let target = (y * outputWidth + x) * 4
                if samples.count == 1 {
                    bytes[target] = UInt8(samples[0])
                    bytes[target + 1] = UInt8(samples[0])
                    bytes[target + 2] = UInt8(samples[0])
                } else if isRGB {
                    bytes[target] = UInt8(samples[0])
                    bytes[target + 1] = UInt8(samples[1])
                    bytes[target + 2] = UInt8(samples[2])
                } else {
                    let (red, green, blue) = YCbCr.rgb(samples[0], samples[1], samples[2])
                    bytes[target] = red
                    bytes[target + 1] = green
                    bytes[target + 2] = blue
                }
            }
        }
        return Result(
            pixels: PixelBuffer(width: outputWidth, height: outputHeight, bytes: bytes), warning: warning, completeScans: completeScans)
    }
}

/// YCbCr to RGB as libjpeg's jdcolor.c computes it: 16-bit fixed point, rounded.
private enum YCbCr {
    private static let scaleBits = 16
    private static let half = 1 << (scaleBits - 1)

    private static func fixed(_ value: Double) -> Int {
        Int(value * Double(1 << scaleBits) + 0.5)
    }

    static func rgb(_ luma: Int, _ blue: Int, _ red: Int) -> (UInt8, UInt8, UInt8) {
        let cb = blue - 128
        let cr = red - 128
        let redOffset = (fixed(1.40200) * cr + half) >> scaleBits
        let blueOffset = (fixed(1.77200) * cb + half) >> scaleBits
        let greenOffset = (-fixed(0.34414) * cb + half - fixed(0.71414) * cr) >> scaleBits
        return (UInt8(clamping: luma + redOffset), UInt8(clamping: luma + greenOffset), UInt8(clamping: luma + blueOffset))
    }
}

/// A canonical Huffman table, decoded a bit at a time by code length (JPEG F.2.2.3).
private struct HuffmanTable {
    private var maxCode = [Int](repeating: -1, count: 17)
    private var valueOffset = [Int](repeating: 0, count: 17)
    private let symbols: [UInt8]

    init?(counts: [Int], symbols: [UInt8]) {
        guard counts.count == 16, counts.reduce(0, +) == symbols.count, symbols.count <= 256 else { return nil }
        self.symbols = symbols
        var code = 0
        var index = 0
        for length in 1...16 {
            let count = counts[length - 1]
            if count > 0 {
                valueOffset[length] = index - code
                code += count
                index += count
                maxCode[length] = code - 1
            }
            code <<= 1
        }
    }

    /// The next symbol, or 255 when no code matches (damaged data).
    func decode(_ reader: inout BitReader) -> Int {
        var code = 0
        for length in 1...16 {
            code = code << 1 | reader.bit()
            if code <= maxCode[length] {
                let index = code + valueOffset[length]
                return index >= 0 && index < symbols.count ? Int(symbols[index]) : 255
            }
        }
        return 255
    }
}

/// Reads entropy-coded bits, undoing byte stuffing, up to the next marker; past it, zeros.
private struct BitReader {
    let data: UnsafeBufferPointer<UInt8>
    var position: Int
    private var buffer = 0
    private var count = 0
    /// Set once a read wanted bits past the end of the data.
    private(set) var ranOut = false
    /// A marker stopped the reading.
    private var atMarker = false

    init(data: UnsafeBufferPointer<UInt8>, position: Int) {
        self.data = data
        self.position = position
    }

    mutating func bit() -> Int {
        if count == 0 { fill() }
        count -= 1
        return (buffer >> count) & 1
    }

    /// `size` more bits as a signed difference (JPEG's EXTEND).
    mutating func receiveExtended(_ size: Int) -> Int32 {
        guard size > 0 else { return 0 }
        var value = 0
        for _ in 0..<size { value = value << 1 | bit() }
        return Int32(value < 1 << (size - 1) ? value - (1 << size) + 1 : value)
    }

    /// Skips to the restart marker and past it, with an empty bit buffer.
    mutating func restart() {
        count = 0
        atMarker = false
        while position + 1 < data.count {
            if data[position] == 0xFF, (0xD0...0xD7).contains(data[position + 1]) {
                position += 2
                return
            }
            if data[position] == 0xFF, data[position + 1] != 0x00, data[position + 1] != 0xFF { return }
            position += 1
        }
    }

    private mutating func fill() {
        var byte = 0
        if !atMarker, position < data.count {
            let value = data[position]
            if value == 0xFF {
                let next = position + 1 < data.count ? data[position + 1] : 0xD9
                if next == 0x00 {
                    byte = 0xFF
                    position += 2
                } else {
                    // A marker where bits were still wanted: the scan's data ended early; zeros
                    // from here on, as libjpeg fills them.
                    atMarker = true
                    ranOut = true
                }
            } else {
                byte = Int(value)
                position += 1
            }
        } else {
            ranOut = true
        }
        buffer = (buffer << 8 | byte) & 0xFFFF
        count = 8
    }
}
