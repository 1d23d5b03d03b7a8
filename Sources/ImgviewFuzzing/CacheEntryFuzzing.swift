import ImgviewFetching

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A metadata file as found in the cache folder: damaged, truncated, or written by another version.
enum CacheEntryFuzzing {
    static func run(_ bytes: [UInt8]) {
        let data = Data(bytes)
        let readings = DiskCache.bothReadings(of: data)
        if let fast = readings.fast {
            // The fast reader exists for speed only: where it reads an entry, JSONDecoder reads the same.
            precondition(readings.decoded == fast, "the fast metadata reader disagrees with JSONDecoder")
        }
        guard let entry = DiskCache.entry(fromMetadata: data) else { return }
        // What was read can be written and read again unchanged.
        guard let metadata = try? DiskCache.metadata(of: entry) else { preconditionFailure("entry cannot be encoded") }
        precondition(DiskCache.entry(fromMetadata: metadata) == entry, "an entry changed in a round trip")
    }
}
