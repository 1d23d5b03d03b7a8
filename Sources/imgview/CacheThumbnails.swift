import ImgviewCodecs
import ImgviewFetching
import ImgviewImaging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The thumbnails of fetched bodies kept in imgview's disk cache, beside the blobs: the cache
/// keeps the files (and removes them with their blob), this makes and reads the PNGs, with the
/// same keys as the freedesktop.org ones (`Thumb::URI` is the URL; no `Thumb::MTime`, the body's
/// hash in the name is what makes one valid).
struct CacheThumbnails: BodyThumbnailStoring {
    let cache: DiskCache

    func thumbnail(ofBody sha256: String, size: ThumbnailSize) -> PixelBuffer? {
        for candidate in ThumbnailSize.allCases where candidate.pixels >= size.pixels {
            if let png = cache.thumbnail(ofBody: sha256, pixels: candidate.pixels), let pixels = FreedesktopThumbnails.decode(png) {
                return pixels
            }
        }
        return nil
    }

    func store(_ pixels: PixelBuffer, ofBody sha256: String, size: ThumbnailSize, url: String) {
        guard !cache.isReadOnly,
            let png = FreedesktopThumbnails.encode(pixels, texts: [("Thumb::URI", url), ("Software", "imgview " + Imgview.version)])
        else { return }
        cache.storeThumbnail(png, ofBody: sha256, pixels: size.pixels)
    }
}
