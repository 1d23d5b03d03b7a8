import ImgviewImaging

extension DecodeRequest {
    /// Whether an image of `width × height` is within `maxPixelCount`: what every decoder asks
    /// before it allocates. The sides are a header's (or a cache entry's) to say, in up to 32 bits
    /// each (63 in a BigTIFF): a product past what an Int holds is past any limit, not what it
    /// wraps to.
    func admits(width: Int, height: Int) -> Bool {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        return !overflow && pixels <= maxPixelCount
    }

    /// Throws `.tooLarge` unless `admits(width:height:)`.
    func admit(width: Int, height: Int) throws(ImageDecodingError) {
        guard admits(width: width, height: height) else { throw .tooLarge(width: width, height: height, limit: maxPixelCount) }
    }
}
