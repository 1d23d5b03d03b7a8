import Foundation
import HTTPTypes
import ImgviewFetching
import ImgviewImaging
import ImgviewPipeline

extension ImagePipeline {
    /// A pipeline over an `ImageFetcher` with `configuration`, for tests of fetching: its bytes,
    /// coalescing, memory and disk caches. Decoding refuses everything unless a decoder is given.
    public static func fetching(
        _ configuration: ImageFetcher.Configuration, decoder: any ImageDecoding = RefusingDecoder()
    ) -> ImagePipeline {
        ImagePipeline(
            configuration: .init(
                fetcher: ImageFetcher(configuration: configuration), decoder: decoder, isOffline: configuration.isOffline,
                now: configuration.now))
    }
}

/// A decoder for tests that only fetch: every image is an unsupported format.
public struct RefusingDecoder: ImageDecoding {
    public init() {}

    public func inspect(_ bytes: Data, probe: ImageProbe) throws(ImageDecodingError) -> ImageHeader {
        throw .unsupportedFormat(probe.format)
    }

    public func decode(_ bytes: Data, header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        throw .unsupportedFormat(header.format)
    }
}

/// A transport for tests that read only local files: any network request fails.
public struct NoNetworkLoader: DataLoading {
    public init() {}

    public func load(_ request: HTTPRequest, adding headers: RequestHeaders, into sink: any TransferSink) async throws -> ResponseHead {
        throw TransportError.local("no network in this test")
    }
}

extension ImageFetcher {
    /// A fetcher for local files only.
    public static var localFiles: ImageFetcher {
        ImageFetcher(configuration: .init(dataLoader: NoNetworkLoader()))
    }
}
