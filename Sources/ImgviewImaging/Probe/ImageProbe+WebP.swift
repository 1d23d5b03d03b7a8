extension ImageProbe {
    /// The RIFF chunks: the first (VP8, VP8L or VP8X) gives the size, VP8X's flags say animation
    /// and ICC, ANIM the loop count and each ANMF a frame's delay; the file is whole when it is as
    /// long as the RIFF header says.
    mutating func readWebP(_ bytes: some ByteReader) {
        guard let riffSize = bytes.littleEndian32(at: 4) else {
            completeness = .truncated
            return
        }
        completeness = bytes.count >= 8 + riffSize ? .complete : .truncated
        var position = 12
        var frames = 0
        var duration = Duration.zero
        var loopCount = 0
        while position + 8 <= bytes.count, let length = bytes.littleEndian32(at: position + 4) {
            let data = position + 8
            switch String(decoding: bytes.bytes(at: position, count: 4), as: UTF8.self) {
            case "VP8 " where position == 12:
                // A key frame: 3-byte frame tag, start code 9D 01 2A, then 14-bit sizes.
                if bytes.matches([0x9D, 0x01, 0x2A], at: data + 3), let width = bytes.littleEndian16(at: data + 6),
                    let height = bytes.littleEndian16(at: data + 8)
                {
                    storedSize = ImageDimensions(width: width & 0x3FFF, height: height & 0x3FFF)
                }
            case "VP8L" where position == 12:
                // Signature 0x2F, then width - 1 and height - 1 in 14 bits each.
                if bytes.byte(at: data) == 0x2F, let bits = bytes.littleEndian32(at: data + 1) {
                    storedSize = ImageDimensions(width: (bits & 0x3FFF) + 1, height: ((bits >> 14) & 0x3FFF) + 1)
                }
            case "VP8X" where position == 12:
                // Flags, then canvas width - 1 and height - 1, 24 bits each.
                if let flags = bytes.byte(at: data), let width = bytes.integer(at: data + 4, size: 3, bigEndian: false),
                    let height = bytes.integer(at: data + 7, size: 3, bigEndian: false)
                {
                    storedSize = ImageDimensions(width: width + 1, height: height + 1)
                    hasColorProfile = flags & 0x20 != 0
                    isAnimated = flags & 0x02 != 0
                }
            case "ANIM":
                loopCount = bytes.littleEndian16(at: data + 4) ?? 0
            case "ANMF":
                frames += 1
                let declared = bytes.integer(at: data + 12, size: 3, bigEndian: false) ?? 0
                duration += AnimationFrame.displayDelay(declared: .milliseconds(declared))
            default:
                break
            }
            // Chunks are padded to an even length.
            position = data + length + (length & 1)
        }
        if isAnimated, frames > 1 {
            animation = AnimationSummary(frameCount: frames, duration: duration, loopCount: loopCount)
        } else {
            isAnimated = false
        }
    }
}
