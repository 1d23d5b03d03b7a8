extension PixelBuffer {
    /// These pixels reduced to `width × height` (no larger than they are) by averaging each
    /// destination pixel's box of source pixels, alpha included: what a thumbnail is made with.
    public func reduced(toWidth width: Int, height: Int) -> PixelBuffer {
        let width = max(1, min(width, self.width))
        let height = max(1, min(height, self.height))
        guard width != self.width || height != self.height else { return self }
        let sourceWidth = self.width
        let sourceHeight = self.height
        // The source columns each destination column averages, found once: at least one each.
        let columns = (0..<width).map { x -> Range<Int> in
            let start = x * sourceWidth / width
            return start..<max(start + 1, (x + 1) * sourceWidth / width)
        }
        let output = [UInt8](unsafeUninitializedCapacity: width * height * 4) { output, initialized in
            var sums = [SIMD4<UInt32>](repeating: .zero, count: width)
            bytes.withUnsafeBufferPointer { source in
                sums.withUnsafeMutableBufferPointer { sums in
                    guard let pixels = source.baseAddress else { return }
                    for y in 0..<height {
                        let top = y * sourceHeight / height
                        let bottom = max(top + 1, (y + 1) * sourceHeight / height)
                        for x in 0..<width { sums[x] = .zero }
                        for row in top..<bottom {
                            let rowStart = pixels + row * sourceWidth * 4
                            for x in 0..<width {
                                var sum = sums[x]
                                for column in columns[x] {
                                    let pixel = rowStart + column * 4
                                    sum &+= SIMD4(UInt32(pixel[0]), UInt32(pixel[1]), UInt32(pixel[2]), UInt32(pixel[3]))
                                }
                                sums[x] = sum
                            }
                        }
                        for x in 0..<width {
                            let count = UInt32((bottom - top) * columns[x].count)
                            let average = (sums[x] &+ SIMD4(repeating: count / 2)) / SIMD4(repeating: count)
                            let offset = (y * width + x) * 4
                            for channel in 0..<4 { output[offset + channel] = UInt8(truncatingIfNeeded: average[channel]) }
                        }
                    }
                }
            }
            initialized = width * height * 4
        }
        return PixelBuffer(width: width, height: height, bytes: output)
    }
}
