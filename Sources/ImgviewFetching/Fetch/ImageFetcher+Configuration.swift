#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension ImageFetcher {
    /// Everything the fetcher depends on, so a test swaps one line.
    public struct Configuration: Sendable {
        /// The HTTP client, always given: the core imports no C, so it cannot pick the libcurl one
        /// itself, and a silent URLSession default would be the slower client wherever one forgot.
        public var dataLoader: any DataLoading
        /// nil keeps nothing on disk.
        public var diskCache: DiskCache?
        public var freshness: Freshness
        public var retry: RetryPolicy
        /// A body larger than this is refused.
        public var maxDownloadBytes: Int64
        /// The largest body the disk cache keeps (`--cache-max-entry`): a larger one is fetched
        /// through the same road but not hashed nor stored, and its file is the response's own.
        public var maxEntryBytes: Int64
        /// One request, retries included, may take this long at most.
        public var overallTimeout: Duration
        /// Bodies up to this size are delivered in memory (where the pipeline may keep them); larger ones as files.
        public var memoryItemLimit: Int
        /// Never touch the network; use what is cached, fresh or stale.
        public var isOffline: Bool
        public var clock: any Clock<Duration>
        public var now: @Sendable () -> Date

        public init(
            dataLoader: any DataLoading,
            diskCache: DiskCache? = nil,
            freshness: Freshness = Freshness(),
            retry: RetryPolicy = RetryPolicy(),
            maxDownloadBytes: Int64 = 512 << 20,
            maxEntryBytes: Int64 = DiskCache.defaultMaxEntry,
            overallTimeout: Duration = .seconds(600),
            memoryItemLimit: Int = 32 << 20,
            isOffline: Bool = false,
            clock: any Clock<Duration> = ContinuousClock(),
            now: @escaping @Sendable () -> Date = Date.init
        ) {
            self.dataLoader = dataLoader
            self.diskCache = diskCache
            self.freshness = freshness
            self.retry = retry
            self.maxDownloadBytes = maxDownloadBytes
            self.maxEntryBytes = maxEntryBytes
            self.overallTimeout = overallTimeout
            self.memoryItemLimit = memoryItemLimit
            self.isOffline = isOffline
            self.clock = clock
            self.now = now
        }
    }
}
