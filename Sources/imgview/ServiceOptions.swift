import ArgumentParser
import Foundation
import ImgviewFetching
import ImgviewPipeline
import ImgviewSupport

/// Network limits for commands that fetch, named after curl's options.
struct ServiceOptions: ParsableArguments {
    static let defaultIdleTimeout: Double = 30

    @Option(name: .customLong("connect-timeout"), help: "Seconds to wait for a connection or for more data.")
    var idleTimeout: Double = defaultIdleTimeout

    @Option(name: .customLong("max-time"), help: "Seconds one image may take at most, retries included.")
    var overallTimeout: Double = 600

    @Option(name: .customLong("retry"), help: "Retries of transient failures (timeouts, lost connections, cut bodies, 408, 429, 5xx).")
    var retries: Int = 3

    @Option(name: .customLong("max-filesize"), help: "Largest download accepted, e.g. 200M.")
    var maxFileSize: String = "512M"

    func validate() throws {
        guard idleTimeout > 0, overallTimeout > 0 else { throw ValidationError("timeouts must be positive") }
        guard (0...20).contains(retries) else { throw ValidationError("--retry takes 0 to 20") }
        guard ByteCount.parse(maxFileSize) != nil else { throw ValidationError("--max-filesize: not a size: \(maxFileSize)") }
    }

    /// `--max-filesize` in bytes: the most a download, or standard input, may hold.
    var maxFileSizeBytes: Int64 { ByteCount.parse(maxFileSize) ?? 512 << 20 }

    /// The HTTP client (`IMGVIEW_HTTP`) with these options' idle timeout; give the same one to the
    /// service and to catalog loading, so one client serves the command.
    func makeLoader() throws -> any DataLoading {
        try HTTPClient.makeLoader(idleTimeout: idleTimeout)
    }

    /// The fetcher configured by these options and the global ones, over the disk cache, with `loader`.
    ///
    /// - Parameter keepsImagesInMemory: false for `get`, which only copies files: bodies stay on disk.
    func makeFetcher(global: GlobalOptions, loader: any DataLoading, keepsImagesInMemory: Bool = true) throws -> ImageFetcher {
        let disk = try DiskCache.forFetching(directory: global.cacheDirectoryURL, sizeLimit: global.cacheSizeLimit())
        let configuration = ImageFetcher.Configuration(
            dataLoader: loader,
            diskCache: disk,
            retry: RetryPolicy(maxRetries: retries),
            maxDownloadBytes: maxFileSizeBytes,
            overallTimeout: .milliseconds(Int(overallTimeout * 1000)),
            memoryItemLimit: keepsImagesInMemory ? 32 << 20 : 0,
            isOffline: global.isOffline)
        return ImageFetcher(configuration: configuration)
    }
}
