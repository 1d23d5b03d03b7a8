import Dispatch
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Runs an `ImageListing` on a queue of its own and hands its images over in batches, so the
/// browser opens with the first ones while the rest of a big folder is still being read.
public enum BackgroundListing {
    /// The first images of `listing` — at least one unless it has none, at most `firstCount` —
    /// and, if it goes on, a stream of the rest in batches of at most `batchSize`.
    ///
    /// The stream stops reading when its consumer goes away.
    public static func start(
        _ listing: ImageListing, firstCount: Int = 64, batchSize: Int = 512
    ) async -> (first: [AppImage], rest: AsyncStream<[AppImage]>?) {
        let queue = DispatchQueue(label: "imgview.listing", qos: .userInitiated)
        let (first, remaining) = await withCheckedContinuation { continuation in
            queue.async {
                var listing = listing
                var first: [AppImage] = []
                while first.count < firstCount, let image = listing.next() { first.append(image) }
                continuation.resume(returning: (first, first.count < firstCount ? nil : listing))
            }
        }
        guard let remaining else { return (first, nil) }
        let (stream, continuation) = AsyncStream.makeStream(of: [AppImage].self)
        let stopped = Locked(false)
        continuation.onTermination = { _ in stopped.withLock { $0 = true } }
        queue.async {
            var listing = remaining
            var batch: [AppImage] = []
            while !stopped.withLock({ $0 }), let image = listing.next() {
                batch.append(image)
                if batch.count == batchSize {
                    continuation.yield(batch)
                    batch = []
                }
            }
            if !batch.isEmpty { continuation.yield(batch) }
            continuation.finish()
        }
        return (first, stream)
    }
}
