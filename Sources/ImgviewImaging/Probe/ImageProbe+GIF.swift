extension ImageProbe {
    /// The logical screen, then every block to the trailer: the frames with their delays and the
    /// loop count come from the same walk that says whether the file is whole, so a GIF is always
    /// read through (its length bytes only, no pixel).
    mutating func readGIF(_ bytes: some ByteReader) {
        guard var width = bytes.littleEndian16(at: 6), var height = bytes.littleEndian16(at: 8) else {
            completeness = .truncated
            return
        }
        var frames = 0
        var duration = Duration.zero
        var loopCount = 1
        var delay = Duration.zero  // from the graphic control block before the next image
        let end = GIFBlocks.walk(byte: bytes.byte(at:)) { block in
            switch block {
            case .extension(let label, let first):
                let firstLength = Int(bytes.byte(at: first) ?? 0)
                if label == 0xF9, firstLength >= 4, let declared = bytes.littleEndian16(at: first + 2) {
                    delay = .milliseconds(10 * declared)
                } else if label == 0xFF, firstLength == 11,
                    ["NETSCAPE2.0", "ANIMEXTS1.0"].contains(where: { bytes.matches(Array($0.utf8), at: first + 1) }),
                    let subLength = bytes.byte(at: first + 12), subLength >= 3, bytes.byte(at: first + 13) == 1,
                    let count = bytes.littleEndian16(at: first + 14)
                {
                    // NETSCAPE2.0 counts repeats after the first play (Chrome's reading; DECISIONS.md).
                    loopCount = count == 0 ? 0 : count + 1
                }
            case .image(let offset):
                if frames == 0, let left = bytes.littleEndian16(at: offset + 1), let top = bytes.littleEndian16(at: offset + 3),
                    let frameWidth = bytes.littleEndian16(at: offset + 5), let frameHeight = bytes.littleEndian16(at: offset + 7)
                {
                    // The first frame may reach past a logical screen that is too small (or zero).
                    width = max(width, left + frameWidth)
                    height = max(height, top + frameHeight)
                }
                frames += 1
                duration += AnimationFrame.displayDelay(declared: delay)
                delay = .zero
            }
        }
        // A GIF without an image (or cut before its first) has nothing to show at any size.
        storedSize = frames > 0 ? ImageDimensions(width: width, height: height) : nil
        if frames > 1 {
            isAnimated = true
            animation = AnimationSummary(frameCount: frames, duration: duration, loopCount: loopCount)
        }
        switch end {
        case .trailer: completeness = .complete
        case .cut: completeness = .truncated
        case .stray: completeness = .unknown  // not a GIF block: the decoder will say what is wrong
        }
    }
}
