import ArgumentParser
import ImgviewFetching
import ImgviewPipeline
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Network limits for commands that fetch, named after curl's options.
struct ServiceOptions: ParsableArguments {
    static let defaultIdleTimeout: Double = 30

    @Option(
        name: .customLong("connect-timeout"),
        help: ArgumentHelp("Seconds to wait for a connection or for more data (default: 30).", valueName: "seconds"))
    var idleTimeoutOption: Double?

    @Option(
        name: .customLong("max-time"),
        help: ArgumentHelp("Seconds one image may take at most, retries included (default: 600).", valueName: "seconds"))
    var overallTimeoutOption: Double?

    @Option(
        name: .customLong("retry"),
        help: ArgumentHelp(
            "Retries of transient failures (timeouts, lost connections, cut bodies, 408, 429, 5xx; default: 3).", valueName: "n"))
    var retriesOption: Int?

    @Option(
        name: .customLong("max-filesize"), help: ArgumentHelp("Largest download accepted, e.g. 200M (default: 512M).", valueName: "size"))
    var maxFileSizeOption: String?

    @Option(
        name: [.customShort("H"), .customLong("header")],
        help: ArgumentHelp(
            "Send this header with every request ('Name: value'; repeatable; 'Name:' removes imgview's own). Authorization and Cookie are not sent on to another host (or port) a redirect leads to, as with curl.",
            valueName: "header"))
    var headerLines: [String] = []

    @Option(
        name: .customLong("referer"), help: ArgumentHelp("Send this Referer with every request, redirects included.", valueName: "url"))
    var referer: String?

    @Option(
        name: .customLong("user-agent"),
        help: ArgumentHelp("Send this User-Agent instead of imgview's own (imgview/VERSION), or the config file's.", valueName: "text"))
    var userAgent: String?

    /// Every option at its default, as a command line without any of them is parsed (see
    /// `GlobalOptions.unset`).
    static var unset: Self {
        var options = Self()
        options.idleTimeoutOption = nil
        options.overallTimeoutOption = nil
        options.retriesOption = nil
        options.maxFileSizeOption = nil
        options.headerLines = []
        options.referer = nil
        options.userAgent = nil
        return options
    }

    func validate() throws {
        if let value = idleTimeoutOption, !(value > 0) { throw ValidationError("timeouts must be positive") }
        if let value = overallTimeoutOption, !(value > 0) { throw ValidationError("timeouts must be positive") }
        if let retries = retriesOption, !(0...20).contains(retries) { throw ValidationError("--retry takes 0 to 20") }
        if let text = maxFileSizeOption, ByteCount.parse(text) == nil { throw ValidationError("--max-filesize: not a size: \(text)") }
    }

    /// `--connect-timeout`, else the config file's, else 30 seconds.
    var idleTimeout: Double { Settings.shared.number("connect-timeout", commandLine: idleTimeoutOption, standard: Self.defaultIdleTimeout) }
    /// `--max-time`, else the config file's, else 600 seconds.
    var overallTimeout: Double { Settings.shared.number("max-time", commandLine: overallTimeoutOption, standard: 600) }
    /// `--retry`, else the config file's, else 3.
    var retries: Int { Settings.shared.integer("retry", commandLine: retriesOption, standard: 3) }

    /// `--max-filesize` (else the config file's, else 512M) in bytes: the most a download, or standard input, may hold.
    var maxFileSizeBytes: Int64 {
        ByteCount.parse(Settings.shared.text("max-filesize", commandLine: maxFileSizeOption, standard: "512M")) ?? 512 << 20
    }

    /// The headers given with `-H`, `--referer` and `--user-agent` (else the config file's
    /// `user-agent`, checked when the file was read), checked: a bad one is a usage
    /// error of one line (`imgview: -H …`, exit 2), thrown when the command makes its loader,
    /// before anything is fetched. (Not from `validate`: ArgumentParser would add its usage text.)
    func requestHeaders() throws(RequestHeaderError) -> RequestHeaders {
        var headers = RequestHeaders()
        for line in headerLines { try headers.add(line) }
        if let referer { try headers.setReferrer(referer) }
        let agent = Settings.shared.text("user-agent", commandLine: userAgent, standard: "")
        if !agent.isEmpty { try headers.setUserAgent(agent) }
        return headers
    }

    /// The HTTP client (`IMGVIEW_HTTP`) with these options' idle timeout and headers; give the
    /// same one to the service and to catalog loading, so one client serves the command.
    func makeLoader() throws -> any DataLoading {
        let loader = try HTTPClient.makeLoader(idleTimeout: idleTimeout)
        let headers = try requestHeaders()
        return headers.isEmpty ? loader : HeaderAddingLoader(loader, headers: headers)
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
            maxEntryBytes: try global.cacheMaxEntryBytes(),
            overallTimeout: .milliseconds(Int(overallTimeout * 1000)),
            memoryItemLimit: keepsImagesInMemory ? 32 << 20 : 0,
            isOffline: global.isOffline)
        return ImageFetcher(configuration: configuration)
    }
}
