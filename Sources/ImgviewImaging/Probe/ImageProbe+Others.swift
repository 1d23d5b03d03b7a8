extension ImageProbe {
    /// BITMAPCOREHEADER (16-bit sizes) or a later header (signed 32-bit; a negative height means
    /// top-down); a V5 header may embed a profile. Whole when as long as the file header says or,
    /// when that is 0, as its uncompressed pixel rows need.
    mutating func readBMP(_ bytes: some ByteReader, through depth: Depth) {
        if depth == .whole { completeness = bitmapCompleteness(bytes) }
        guard let headerSize = bytes.littleEndian32(at: 14) else { return }
        if headerSize == 12 {
            if let width = bytes.littleEndian16(at: 18), let height = bytes.littleEndian16(at: 20) {
                storedSize = ImageDimensions(width: width, height: height)
            }
        } else if headerSize >= 40, let width = bytes.littleEndian32(at: 18), let height = bytes.littleEndian32(at: 22) {
            let signedHeight = Int(Int32(bitPattern: UInt32(height)))
            if signedHeight != Int(Int32.min) {
                storedSize = ImageDimensions(width: Int(Int32(bitPattern: UInt32(width))), height: abs(signedHeight))
            }
            // bV5CSType 'MBED': a profile inside the file.
            hasColorProfile = headerSize >= 124 && bytes.littleEndian32(at: 14 + 56) == 0x4D42_4544
        }
    }

    private func bitmapCompleteness(_ bytes: some ByteReader) -> ImageCompleteness.Verdict {
        guard let declared = bytes.littleEndian32(at: 2), let offset = bytes.littleEndian32(at: 10) else { return .truncated }
        if declared >= 26 { return bytes.count >= declared ? .complete : .truncated }
        guard let headerSize = bytes.littleEndian32(at: 14), let width = bytes.littleEndian32(at: 18),
            let height = bytes.littleEndian32(at: 22), let bitsPerPixel = bytes.littleEndian16(at: 28),
            let compression = bytes.littleEndian32(at: 30)
        else { return .truncated }
        // Compressed rows (RLE, JPEG, PNG inside) have no length to check; old 12-byte headers are rare.
        guard headerSize >= 40, compression == 0 || compression == 3 else { return .unknown }
        let rows = Int(Int32(truncatingIfNeeded: UInt32(height)).magnitude)
        let rowBytes = (Int(Int32(truncatingIfNeeded: UInt32(width)).magnitude) * bitsPerPixel + 31) / 32 * 4
        // The rows' bytes and the offset they start at are the file's to say: either may pass what an Int holds.
        let (pixels, overflow) = rowBytes.multipliedReportingOverflow(by: rows)
        let (end, endOverflow) = offset.addingReportingOverflow(pixels)
        guard !overflow, !endOverflow else { return .unknown }
        return bytes.count >= end ? .complete : .truncated
    }

    /// The first page's size, orientation and ICC profile (34675), from the chain of directories
    /// (`TIFFDirectories`: reduced copies and masks are not pages); the directories may sit
    /// anywhere in the file, and nothing says where a TIFF file ends.
    mutating func readTIFF(_ bytes: some ByteReader, through depth: Depth) {
        completeness = .unknown
        guard let page = TIFFDirectories.read(bytes)?.pages.first else { return }
        storedSize = ImageDimensions(width: page.width, height: page.height)
        orientation = page.orientation
        hasColorProfile = page.hasColorProfile
    }

    /// QOI: the size after the magic; whole when every pixel's chunk and the 8-byte end marker are there.
    mutating func readQOI(_ bytes: some ByteReader, through depth: Depth) {
        guard let width = bytes.bigEndian32(at: 4), let height = bytes.bigEndian32(at: 8) else {
            completeness = .truncated
            return
        }
        storedSize = ImageDimensions(width: width, height: height)
        guard depth == .whole else { return }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow else {
            completeness = .unknown
            return
        }
        var position = 14
        var decoded = 0
        while decoded < pixels {
            guard let tag = bytes.byte(at: position) else {
                completeness = .truncated
                return
            }
            switch tag {
            case 0xFE: position += 4  // RGB
            case 0xFF: position += 5  // RGBA
            case 0x80...0xBF: position += 2  // LUMA
            default: position += 1  // INDEX, DIFF, RUN
            }
            decoded += tag >= 0xC0 && tag < 0xFE ? Int(tag & 0x3F) + 1 : 1
        }
        completeness = bytes.count >= position + 8 ? .complete : .truncated
    }

    /// An icon or cursor: its largest picture, sized by its own data (`IconDirectory`); whole
    /// when every picture it lists is as long as its entry says, where it says.
    mutating func readIcon(_ bytes: some ByteReader, through depth: Depth) {
        guard let count = bytes.littleEndian16(at: 4) else {
            completeness = .truncated
            return
        }
        if let largest = IconDirectory.read(bytes)?.largest {
            storedSize = ImageDimensions(width: largest.width, height: largest.height)
        }
        var end = 6 + 16 * count
        var whole = true
        for entry in stride(from: 6, to: 6 + 16 * count, by: 16) {
            guard let size = bytes.littleEndian32(at: entry + 8), let offset = bytes.littleEndian32(at: entry + 12) else {
                whole = false
                break
            }
            end = max(end, offset + size)
        }
        completeness = whole && bytes.count >= end ? .complete : .truncated
    }

    /// JPEG XL: the SizeHeader of a bare codestream or of the container's first codestream box. A
    /// bare codestream says nowhere where it ends; a container is judged by its boxes.
    mutating func readJPEGXL(_ bytes: some ByteReader, through depth: Depth) {
        if let size = JPEGXLHeader.size(bytes.bytes(at: 0, count: 1 << 17)) {
            storedSize = ImageDimensions(width: size.width, height: size.height)
        }
        guard depth == .whole else { return }
        if bytes.byte(at: 0) == 0xFF {
            completeness = .unknown  // FF 0A: a bare codestream
        } else {
            var container = ImageProbe(format: .jxl)
            container.readISOMedia(bytes, through: .whole)
            completeness = container.completeness
        }
    }
}
