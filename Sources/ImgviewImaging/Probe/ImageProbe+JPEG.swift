extension ImageProbe {
    private static let exifSignature: [UInt8] = Array("Exif".utf8) + [0, 0]
    private static let iccSignature: [UInt8] = Array("ICC_PROFILE".utf8) + [0]

    /// One walk over the markers: the frame header's size, the first EXIF block's orientation, an
    /// ICC profile's first chunk, and (to `.whole`) EOI. Metadata segments all come before the
    /// first scan, so a header probe stops there.
    mutating func readJPEG(_ bytes: some ByteReader, through depth: Depth) {
        var size: ImageDimensions?
        var foundExif = false
        var scanned = false
        let end = JPEGMarkers.walk(bytes) { segment in
            let payload = segment.payload
            // Metadata counts where readers look for it: before the image data.
            guard !scanned else { return .next }
            if segment.isFrameHeader, size == nil, payload.count >= 5,
                let height = bytes.bigEndian16(at: payload.lowerBound + 1), let width = bytes.bigEndian16(at: payload.lowerBound + 3)
            {
                size = ImageDimensions(width: width, height: height)
            } else if segment.marker == 0xE1, !foundExif, bytes.matches(Self.exifSignature, at: payload.lowerBound) {
                foundExif = true
                let tiff = (payload.lowerBound + 6)..<payload.upperBound
                orientation = TIFFDirectory(bytes, in: tiff)?.orientation ?? .up
            } else if segment.marker == 0xE2, bytes.matches(Self.iccSignature, at: payload.lowerBound) {
                hasColorProfile = true
            } else if segment.marker == 0xDA {
                scanned = true
                if depth == .header { return .stop }
            }
            return .next
        }
        storedSize = size
        switch end {
        case .endOfImage: completeness = .complete
        case .cut, .notJPEG: completeness = .truncated
        case .stopped: completeness = nil
        }
    }
}
