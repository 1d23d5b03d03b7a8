extension PixelBuffer {
    /// These pixels reduced to `width × height` (no larger than they are) by averaging each
    /// destination pixel's box of source pixels, alpha included: what a thumbnail is made with.
    public func reduced(toWidth width: Int, height: Int) -> PixelBuffer {
        let width = max(1, min(width, self.width))
        let height = max(1, min(height, self.height))
        guard width != self.width || height != self.height else { return self }
        var output = [UInt8](repeating: 0, count: width * height * 4)
        // The source columns each destination column averages, found once.
        let columnStarts = (0...width).map { $0 * self.width / width }
        var sums = [UInt32](repeating: 0, count: width * 4)
        bytes.withUnsafeBufferPointer { source in
            for y in 0..<height {
                let top = y * self.height / height
                let bottom = max(top + 1, (y + 1) * self.height / height)
                for index in sums.indices { sums[index] = 0 }
                for row in top..<bottom {
                    let rowStart = row * self.width * 4
                    for x in 0..<width {
                        for column in columnStarts[x]..<max(columnStarts[x] + 1, columnStarts[x + 1]) {
                            let offset = rowStart + column * 4
                            sums[x * 4] += UInt32(source[offset])
                            sums[x * 4 + 1] += UInt32(source[offset + 1])
                            sums[x * 4 + 2] += UInt32(source[offset + 2])
                            sums[x * 4 + 3] += UInt32(source[offset + 3])
                        }
                    }
                }
                for x in 0..<width {
                    let count = UInt32((bottom - top) * max(1, columnStarts[x + 1] - columnStarts[x]))
                    let offset = (y * width + x) * 4
                    for channel in 0..<4 { output[offset + channel] = UInt8((sums[x * 4 + channel] + count / 2) / count) }
                }
            }
        }
        return PixelBuffer(width: width, height: height, bytes: output)
    }
}
