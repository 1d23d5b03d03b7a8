import Foundation
import ImgviewCurl
import ImgviewTestSupport
import Testing

@testable import ImgviewFetching
@testable import ImgviewSupport

/// A large local file reaches the decoder mapped; one that changes between being hashed and
/// being decoded, or is cut short while it is read, is reported as changed, never decoded as
/// something else (DECISIONS.md, "A mapped file cut short reads as zeros and is reported").
@Suite("Mapped files that change under the reader")
struct MappedFileChangeTests {
    /// A fetcher that leaves every file over 1,000 bytes where it is, for the decoder to map.
    func makeFetcher() -> ImageFetcher {
        ImageFetcher(configuration: .init(dataLoader: CurlDataLoader(idleTimeout: 5), memoryItemLimit: 1_000))
    }

    func largeFile(in folder: URL) throws -> URL {
        let url = folder.appendingPathComponent("large.png")
        try fakePNG(size: 64 * 1024).write(to: url)
        return url
    }

    /// A large file in `folder`, and the fetcher's response for it (hashed, left where it is).
    func fetchedLargeFile(in folder: URL) async throws -> (URL, ImageResponse) {
        let url = try largeFile(in: folder)
        return (url, try await makeFetcher().fetch(ImageRequest(url: url), progress: { _, _ in }, body: nil))
    }

    @Test func aFileLeftAloneIsReadAsItWasHashed() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let (url, response) = try await fetchedLargeFile(in: folder)
            guard case .file = response.body else {
                Issue.record("a file over the limit is mapped, not read whole")
                return
            }
            let read = try response.withDecoderBytes { bytes, mapping in (bytes, mapping?.isIntact) }
            #expect(read.0 == (try Data(contentsOf: url)))
            #expect(read.1 == true)
        }
    }

    @Test func aFileReadForAThumbnailIsMappedFromItsThresholdOn() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fetcher = ImageFetcher(configuration: .init(dataLoader: CurlDataLoader(idleTimeout: 5)))
        let threshold = ImageFetcher.mappedThumbnailSource
        for (name, size, needsDigest, mapped) in [
            ("photo.png", threshold + 1, false, true), ("small.png", threshold, false, false),
            ("viewed.png", threshold + 1, true, false),
        ] {
            let url = folder.appendingPathComponent(name)
            let bytes = fakePNG(size: size)
            try bytes.write(to: url)
            let response = try await fetcher.fetch(ImageRequest(url: url, needsDigest: needsDigest), progress: { _, _ in }, body: nil)
            if case .file = response.body {
                #expect(mapped, "\(name) is read whole")
            } else {
                #expect(!mapped, "\(name) is left where it is, for the decoder to map")
            }
            #expect(try response.withDecoderBytes { bytes, _ in bytes } == bytes)
            #expect(response.entry.sha256.isEmpty != needsDigest)
        }
    }

    @Test(arguments: ["append", "replace", "truncate"])
    func aFileChangedSinceItWasHashedIsNotDecoded(change: String) async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let (url, response) = try await fetchedLargeFile(in: folder)
            switch change {
            case "append":
                let handle = try FileHandle(forWritingTo: url)
                try handle.seekToEnd()
                try handle.write(contentsOf: Data([0]))
                try handle.close()
            case "replace":
                let other = folder.appendingPathComponent("other.png")
                try fakePNG(size: 64 * 1024).write(to: other)
                #expect(rename(other.path, url.path) == 0)
            default:
                #expect(truncate(url.path, 4096) == 0)
            }
            var decoded = false
            #expect(throws: ImagePipelineError.fileChanged(url)) {
                try response.withDecoderBytes { _, _ in decoded = true }
            }
            #expect(!decoded)
            #expect(ImagePipelineError.fileChanged(url).message == "\(url.path): changed while it was read")
            #expect(ImagePipelineError.fileChanged(url).exitStatus == .notFound)
        }
    }

    /// The handler's half, called as SIGBUS would call it: the pages past the new end read as
    /// zeros, and the reader learns its bytes are no longer the file's, whatever it returned.
    @Test func aFileCutShortWhileReadReadsAsZerosAndIsReported() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let (url, response) = try await fetchedLargeFile(in: folder)
            MappedRegions.prepare()
            let page = Int(sysconf(Int32(_SC_PAGESIZE)))
            #expect(throws: ImagePipelineError.fileChanged(url)) {
                try response.withDecoderBytes { bytes, mapping in
                    #expect(mapping?.isIntact == true)
                    #expect(truncate(url.path, off_t(page)) == 0)
                    bytes.withUnsafeBytes { raw in
                        let address = UInt(bitPattern: raw.baseAddress! + 2 * page + 5)
                        #expect(MappedRegions.recover(faultAddress: address))
                        #expect(raw[2 * page + 5] == 0 && raw[raw.count - 1] == 0)
                        #expect(raw[0] == 0x89, "the bytes still in the file are the file's")
                    }
                    #expect(mapping?.isIntact == false)
                    return 42
                }
            }
        }
    }

    @Test func anAddressNoMappingHoldsIsNotRecovered() {
        MappedRegions.prepare()
        var local = 0
        withUnsafeMutablePointer(to: &local) { pointer in
            #expect(!MappedRegions.recover(faultAddress: UInt(bitPattern: pointer)))
        }
    }

    @Test func aMappingStopsBeingWatchedWhenItGoes() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let url = try largeFile(in: folder)
            var address: UInt = 0
            do {
                let mapping = try MappedFile(url)
                mapping.data.withUnsafeBytes { address = UInt(bitPattern: $0.baseAddress!) }
            }
            #expect(address != 0)
            #expect(!MappedRegions.recover(faultAddress: address))
        }
    }
}
