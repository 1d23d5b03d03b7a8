import ImgviewImaging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What an SVG file asks of librsvg, counted in Swift before librsvg sees it: librsvg cannot be
/// cancelled and has no budget of its own short of a million elements, which it reaches only
/// after gigabytes.
///
/// Refused: a file over `maxBytes`; more than `maxElements` elements (each costs librsvg memory
/// and time; DECISIONS.md has the figures); entities whose text holds markup (they would multiply elements past the
/// count); embedded images (`data:` URIs) whose size cannot be read or whose pixels together pass
/// `maxEmbeddedPixels` (librsvg decodes them whole), and SVGs inside SVGs inside SVGs. Nothing
/// outside the file is ever loaded: librsvg is given no base URI, so it resolves no reference to
/// a file or the network.
struct SVGScan {
    static let maxBytes = 16 << 20
    static let maxElements = 40_000
    static let maxEmbeddedPixels = 16_000_000
    /// How much of an embedded image is decoded to find its size.
    static let embeddedPrefix = 64 << 10

    private(set) var elements = 0
    private(set) var embeddedPixels = 0

    /// Checks `bytes`; throws the one-line reason it is refused.
    static func check(_ bytes: Data) throws(ImageDecodingError) {
        guard bytes.count <= maxBytes else {
            throw .corrupt(.svg, detail: "too large: \(bytes.count / (1 << 20)) MB of XML, the limit is \(maxBytes >> 20) MB")
        }
        var scan = SVGScan()
        let outcome: Result<Void, ImageDecodingError> = bytes.withUnsafeBytes { raw in
            do throws(ImageDecodingError) {
                return .success(try scan.add(raw.bindMemory(to: UInt8.self), depth: 0))
            } catch {
                return .failure(error)
            }
        }
        try outcome.get()
    }

    private mutating func add(_ text: UnsafeBufferPointer<UInt8>, depth: Int) throws(ImageDecodingError) {
        let count = text.count
        var index = 0
        while index < count {
            guard text[index] == UInt8(ascii: "<") else {
                if text[index] == UInt8(ascii: "d"), Self.matches(text, at: index, "data:") {
                    index = try addEmbedded(text, from: index + 5, depth: depth)
                    continue
                }
                index += 1
                continue
            }
            let next = index + 1 < count ? text[index + 1] : 0
            if Self.isLetter(next) {
                elements += 1
                if elements > Self.maxElements {
                    throw .corrupt(.svg, detail: "too complex: more than \(Self.maxElements) elements")
                }
            } else if Self.matches(text, at: index, "<!ENTITY") {
                // An entity is text up to its closing '>'; markup in it would make elements the count never saw.
                var end = index + 8
                while end < count, text[end] != UInt8(ascii: ">") {
                    if text[end] == UInt8(ascii: "<") || Self.matches(text, at: end, "&#60;") || Self.matches(text, at: end, "&lt;") {
                        throw .corrupt(.svg, detail: "an entity that holds markup is not drawn")
                    }
                    end += 1
                }
                index = end
            }
            index += 1
        }
    }

    /// A `data:` URI's image from just after "data:": its size read from its first bytes, added to
    /// the budget; returns where the URI ends.
    private mutating func addEmbedded(_ text: UnsafeBufferPointer<UInt8>, from start: Int, depth: Int) throws(ImageDecodingError) -> Int {
        var end = start
        let terminators: Set<UInt8> = [UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: ")"), UInt8(ascii: "<"), UInt8(ascii: ">")]
        while end < text.count, !terminators.contains(text[end]) { end += 1 }
        guard let comma = text[start..<end].firstIndex(of: UInt8(ascii: ",")) else { return end }
        let header = String(decoding: text[start..<comma], as: UTF8.self).lowercased()
        // Only images are drawn; other data (fonts, text) is not this scan's business.
        guard header.hasPrefix("image/") else { return end }
        let payload = UnsafeBufferPointer(rebasing: text[(comma + 1)..<end])
        let data = header.hasSuffix(";base64") ? Self.base64Prefix(payload) : Self.percentDecodedPrefix(payload)
        if header.hasPrefix("image/svg") {
            guard depth == 0 else { throw .corrupt(.svg, detail: "an SVG inside an SVG inside an SVG is not drawn") }
            // The whole inner SVG, not only its prefix: its elements count with the outer ones.
            let inner =
                header.hasSuffix(";base64") ? Self.base64Prefix(payload, limit: .max) : Self.percentDecodedPrefix(payload, limit: .max)
            try inner.withUnsafeBufferPointer { (buffer: UnsafeBufferPointer<UInt8>) throws(ImageDecodingError) in
                try add(buffer, depth: depth + 1)
            }
            return end
        }
        guard let size = ImageProbe.read(ArrayBytes(data))?.storedSize else {
            throw .corrupt(.svg, detail: "an embedded image whose size cannot be read")
        }
        // A header's sides take up to 32 bits each (QOI, HEIF's `ispe`), a BigTIFF's 63: a product
        // or a sum past what an Int holds is past the limit.
        let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
        let (total, totalOverflow) = embeddedPixels.addingReportingOverflow(pixels)
        guard !overflow, !totalOverflow, total <= Self.maxEmbeddedPixels else {
            throw .corrupt(
                .svg,
                detail:
                    "embedded images of more than \(Self.maxEmbeddedPixels / 1_000_000) megapixels in all (one is \(size.width)×\(size.height))"
            )
        }
        embeddedPixels = total
        return end
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == UInt8(ascii: "_") || byte >= 0x80
    }

    private static func matches(_ text: UnsafeBufferPointer<UInt8>, at index: Int, _ word: String) -> Bool {
        let bytes = Array(word.utf8)
        guard index + bytes.count <= text.count else { return false }
        for (offset, byte) in bytes.enumerated() where text[index + offset] != byte { return false }
        return true
    }

    /// The first bytes base64 encodes (whitespace skipped, as XML attributes may wrap).
    private static func base64Prefix(_ text: UnsafeBufferPointer<UInt8>, limit: Int = embeddedPrefix) -> [UInt8] {
        var output: [UInt8] = []
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in text {
            let value: UInt32
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(byte - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(byte - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(byte - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "+"), UInt8(ascii: "-"): value = 62
            case UInt8(ascii: "/"), UInt8(ascii: "_"): value = 63
            case UInt8(ascii: "="): return output
            default: continue
            }
            accumulator = accumulator << 6 | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                if output.count >= limit { return output }
            }
        }
        return output
    }

    /// The first bytes of a percent-encoded payload.
    private static func percentDecodedPrefix(_ text: UnsafeBufferPointer<UInt8>, limit: Int = embeddedPrefix) -> [UInt8] {
        var output: [UInt8] = []
        var index = 0
        func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        while index < text.count, output.count < limit {
            if text[index] == UInt8(ascii: "%"), index + 2 < text.count, let high = hex(text[index + 1]), let low = hex(text[index + 2]) {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(text[index])
                index += 1
            }
        }
        return output
    }
}
