import Foundation

/// An image the browser has fetched and decoded, kept so that returning to its tab, resizing
/// or switching modes renders again without fetching or decoding again.
struct PreparedImage: Sendable {
    let url: URL
    let bytes: Data
    let entry: CacheEntry
    let isCached: Bool
    let source: ImageResponse.Source
    let fetchTime: Duration
    let decoded: DecodedImage
    let decodeTime: Duration

    /// Bytes held in memory: the file and the pixels, every frame of an animation included.
    var cost: Int { bytes.count + decoded.pixelByteCount }

    /// Whether the decoded pixels are enough for a preview that needs `minimum` pixels.
    func covers(_ minimum: (width: Int, height: Int)) -> Bool {
        let full = decoded.header.uprightSize
        let pixels = decoded.pixels
        return (pixels.width >= minimum.width || pixels.width >= full.width)
            && (pixels.height >= minimum.height || pixels.height >= full.height)
    }

    /// The metadata pane's facts as this image was fetched.
    func details(now: Date) -> ImageDetails {
        details(source: source, fetchTime: fetchTime, now: now)
    }

    func details(source: ImageResponse.Source, fetchTime: Duration, now: Date) -> ImageDetails {
        let upright = decoded.header.uprightSize
        return ImageDetails(
            url: url, format: decoded.header.format, width: upright.width, height: upright.height,
            byteCount: Int64(bytes.count), source: source, fetchTime: fetchTime, decodeTime: decodeTime,
            cacheState: CacheStatus(isCached: isCached, entry: entry, now: now))
    }
}

/// Turns fetched bytes into a preview: decoding and rendering, the heavy work kept off the main actor.
struct PreviewMaker: Sendable {
    let decoder: any ImageDecoding
    let maxPixelCount: Int

    /// Decodes at the smallest scale that still covers a preview filling `options`' box in any mode.
    func prepare(_ response: ImageResponse, bytes: Data, for options: RenderOptions) throws -> PreparedImage {
        let started = ContinuousClock.now
        let decoded = try decode(bytes, for: options)
        return PreparedImage(
            url: response.request.url, bytes: bytes, entry: response.entry, isCached: response.isCached, source: response.source,
            fetchTime: response.elapsed, decoded: decoded, decodeTime: started.duration(to: .now))
    }

    /// `prepared` decoded again for a larger box, from the bytes it kept.
    func redecode(_ prepared: PreparedImage, for options: RenderOptions) throws -> PreparedImage {
        let started = ContinuousClock.now
        let decoded = try decode(prepared.bytes, for: options)
        return PreparedImage(
            url: prepared.url, bytes: prepared.bytes, entry: prepared.entry, isCached: prepared.isCached, source: prepared.source,
            fetchTime: prepared.fetchTime, decoded: decoded, decodeTime: started.duration(to: .now))
    }

    func render(_ prepared: PreparedImage, options: RenderOptions) -> CellGrid {
        PreviewRenderer(options: options).render(prepared.decoded.pixels)
    }

    /// The pixels a preview in `options`' box needs, whichever mode it is drawn in.
    func minimumSize(of header: ImageHeader, for options: RenderOptions) -> (width: Int, height: Int) {
        var widest = options
        widest.mode = .blocks  // blocks sample 2×6 per cell, more than ASCII's 2×4
        let upright = header.uprightSize
        return PreviewRenderer(options: widest).minimumDecodeSize(width: upright.width, height: upright.height)
    }

    private func decode(_ bytes: Data, for options: RenderOptions) throws -> DecodedImage {
        let header = try decoder.inspect(bytes)
        return try decoder.decode(
            bytes, header: header, request: DecodeRequest(minimumSize: minimumSize(of: header, for: options), maxPixelCount: maxPixelCount))
    }
}
