import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension ImageFacts: Encodable {
    /// `imgview info --json`: stable keys, every one always present (null when unknown).
    enum CodingKeys: String, CodingKey {
        case format, previewable, width, height, storedWidth = "stored_width", storedHeight = "stored_height", orientation, frames,
            durationMilliseconds = "duration_ms", loopCount = "loop_count", pages, scalable, profile, damage, camera, bytes, sha256, source,
            origin,
            cacheState =
            "cache_state",
            etag, lastModified = "last_modified"
    }

    /// `"camera"`: every key always present; the exposure in seconds, the focal length in mm.
    enum CameraKeys: String, CodingKey {
        case make, model, lens, taken, exposure = "exposure_s", fNumber = "f_number", focalLength = "focal_length_mm", iso, gps
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(format.displayName, forKey: .format)
        // Every format imgview recognises, it previews (since issue 30); scripts may read the key.
        try container.encode(true, forKey: .previewable)
        // A vector image's size is its own, when it has one; its shape at 8192 pixels is no size to report.
        try container.encode(isScalable ? naturalSize?.width : width, forKey: .width)
        try container.encode(isScalable ? naturalSize?.height : height, forKey: .height)
        try container.encode(isScalable ? naturalSize?.width : storedWidth, forKey: .storedWidth)
        try container.encode(isScalable ? naturalSize?.height : storedHeight, forKey: .storedHeight)
        try container.encode(orientation.rawValue, forKey: .orientation)
        try container.encode(animation?.frameCount ?? 1, forKey: .frames)
        try container.encode(animation.map(\.duration.wholeMilliseconds), forKey: .durationMilliseconds)
        try container.encode(animation?.loopCount, forKey: .loopCount)
        try container.encode(pageCount, forKey: .pages)
        try container.encode(isScalable, forKey: .scalable)
        try container.encode(colorProfile?.name, forKey: .profile)
        try container.encode(damage, forKey: .damage)
        if let camera {
            var fields = container.nestedContainer(keyedBy: CameraKeys.self, forKey: .camera)
            try fields.encode(camera.make.map(TerminalText.sanitized), forKey: .make)
            try fields.encode(camera.model.map(TerminalText.sanitized), forKey: .model)
            try fields.encode(camera.lens.map(TerminalText.sanitized), forKey: .lens)
            try fields.encode(camera.taken?.isoText, forKey: .taken)
            try fields.encode(camera.exposure.map { Double($0.numerator) / Double($0.denominator) }, forKey: .exposure)
            try fields.encode(camera.fNumber, forKey: .fNumber)
            try fields.encode(camera.focalLength, forKey: .focalLength)
            try fields.encode(camera.iso, forKey: .iso)
            try fields.encode(camera.hasLocation, forKey: .gps)
        } else {
            try container.encodeNil(forKey: .camera)
        }
        try container.encode(byteCount, forKey: .bytes)
        try container.encode(sha256, forKey: .sha256)
        try container.encode(TerminalText.sanitized(location), forKey: .source)
        try container.encode(source.rawValue, forKey: .origin)
        try container.encode(cacheState.description, forKey: .cacheState)
        try container.encode(etag.map(TerminalText.sanitized), forKey: .etag)
        try container.encode(lastModified.map(TerminalText.sanitized), forKey: .lastModified)
    }
}
