extension ImageProbe {
    /// Chunk by chunk after the signature: IHDR's size, eXIf's orientation, iCCP (or cICP), and
    /// an APNG's acTL and fcTL frames; to `.whole`, on to an IEND that is there whole.
    mutating func readPNG(_ bytes: some ByteReader, through depth: Depth) {
        var position = 8
        var frames: (count: Int, plays: Int)?
        var duration = Duration.zero
        // Metadata counts where readers look for it: before the image data.
        var sawImageData = false
        while let length = bytes.bigEndian32(at: position), let type = bytes.bigEndian32(at: position + 4) {
            let data = position + 8
            let end = data + length + 4  // and the CRC
            guard end <= bytes.count else { break }
            switch type {
            case 0x4948_4452 where position == 8:  // IHDR: the first chunk; another later is not the header decoders read
                if let width = bytes.bigEndian32(at: data), let height = bytes.bigEndian32(at: data + 4),
                    width <= Int(Int32.max), height <= Int(Int32.max)
                {
                    storedSize = ImageDimensions(width: width, height: height)
                }
            case 0x6558_4966 where !sawImageData:  // eXIf
                orientation = TIFFDirectory(bytes, in: data..<(data + length))?.orientation ?? .up
            case 0x6943_4350 where !sawImageData, 0x6349_4350 where !sawImageData:  // iCCP, cICP
                hasColorProfile = true
            case 0x6163_544C where !sawImageData:  // acTL: frames and plays
                if let count = bytes.bigEndian32(at: data), let plays = bytes.bigEndian32(at: data + 4), count > 1 {
                    frames = (count, plays)
                    isAnimated = true
                }
            case 0x6663_544C:  // fcTL: a frame's delay, numerator over denominator (0 means 100)
                if let numerator = bytes.bigEndian16(at: data + 20), let denominator = bytes.bigEndian16(at: data + 22) {
                    let delay = Duration.milliseconds(numerator * 1000 / (denominator == 0 ? 100 : denominator))
                    duration += AnimationFrame.displayDelay(declared: delay)
                }
            case 0x4944_4154:  // IDAT: the metadata came before it
                sawImageData = true
                if depth == .header && !isAnimated { return }
            case 0x4945_4E44:  // IEND
                completeness = .complete
            default:
                break
            }
            if completeness == .complete { break }
            position = end
        }
        if completeness == nil { completeness = .truncated }
        if let frames { animation = AnimationSummary(frameCount: frames.count, duration: duration, loopCount: frames.plays) }
    }
}
