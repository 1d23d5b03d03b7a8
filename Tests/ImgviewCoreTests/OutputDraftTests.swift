import Crypto
import Foundation
import ImgviewTestSupport
import SystemPackage
import Testing

@testable import ImgviewFetching

/// `OutputDraft`: an output filled while its body arrives becomes the file by being named, and is
/// set aside (for a copy) whenever it cannot hold exactly the whole body.
@Suite("Output drafts")
struct OutputDraftTests {
    /// 2.5 blocks of bytes, so that chunks cross block boundaries and a part block is left at the end.
    static let body = Data((0..<(OutputDraft.blockSize * 5 / 2)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) })

    /// Gives `bytes` to the draft from `start` on, as a transfer does: in 16 KB chunks.
    func feed(_ draft: OutputDraft, _ bytes: Data, from start: Int = 0) {
        let tap = draft.bodyTap
        var offset = start
        while offset < bytes.count {
            let end = min(bytes.count, offset + 16_384)
            bytes[offset..<end].withUnsafeBytes { tap(Int64(offset), $0) }
            offset = end
        }
    }

    /// Publishes with `source` as what a copy would be made from.
    func publish(_ source: URL, byteCount: Int, to destination: URL, draft: OutputDraft?) throws -> OutputFile.Outcome {
        let file = try FileDescriptor.open(source.path, .readOnly)
        defer { try? file.close() }
        return try OutputFile.publish(
            .file(file), byteCount: Int64(byteCount), sha256: nil, to: destination, replace: false, draft: draft)
    }

    func names(in folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    @Test func aDraftThatTookTheWholeBodyIsNamedNotCopied() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: output) }
        // The source a copy would read is empty: an output with the body's bytes can only be the draft.
        let empty = folder.appendingPathComponent("empty")
        try Data().write(to: empty)

        let draft = try #require(OutputDraft.open(in: output))
        feed(draft, Self.body)
        #expect(try names(in: output).isEmpty, "nothing is visible before it is named")
        let destination = output.appendingPathComponent("out.jpg")
        #expect(try publish(empty, byteCount: Self.body.count, to: destination, draft: draft) == .written)
        draft.close()
        #expect(try Data(contentsOf: destination) == Self.body)
        #expect(try names(in: output) == ["out.jpg"])
    }

    /// Only a body that came from the network went through the draft. One from the cache (a 304
    /// after a failed attempt left as many bytes of another body in the draft) is copied.
    @Test(arguments: [ImageResponse.Source.revalidated, .disk, .memory, .network])
    func onlyANetworkBodyIsTakenFromTheDraft(source: ImageResponse.Source) throws {
        let output = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: output) }
        let draft = try #require(OutputDraft.open(in: output))
        let other = Data(repeating: 0xEE, count: Self.body.count)
        feed(draft, other)
        let url = URL(string: "http://h/a.jpg")!
        let now = Date()
        let entry = CacheEntry(
            url: url, finalURL: url, contentType: "image/jpeg", format: .jpeg, byteCount: Int64(Self.body.count),
            sha256: SHA256.hash(data: Self.body).hexString, etag: nil, lastModified: nil, fetchedAt: now, lastAccessedAt: now,
            freshUntil: now)
        let response = ImageResponse(
            request: ImageRequest(url: url), entry: entry, source: source, body: .data(Self.body), elapsed: .zero, isCached: true)
        let destination = output.appendingPathComponent("out.jpg")
        #expect(try response.write(to: destination, replace: false, draft: draft) == .written)
        draft.close()
        // From the network, the draft is the output (here deliberately not the response's bytes).
        let expected = source == .network ? other : Self.body
        #expect(try Data(contentsOf: destination) == expected ? true : false)
    }

    @Test func aRetryStartsTheDraftOver() throws {
        let output = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: output) }
        let draft = try #require(OutputDraft.open(in: output))
        defer { draft.close() }
        // The first attempt broke off after a block and a half; the retry sends the body from 0.
        feed(draft, Data(repeating: 0xEE, count: OutputDraft.blockSize * 3 / 2))
        feed(draft, Self.body)
        let empty = output.appendingPathComponent(".empty")
        try Data().write(to: empty)
        let destination = output.appendingPathComponent("out.jpg")
        #expect(try publish(empty, byteCount: Self.body.count, to: destination, draft: draft) == .written)
        #expect(try Data(contentsOf: destination) == Self.body)
    }

    /// A draft that joined a transfer under way, was given a different length, or lives in another
    /// folder is not used: the output is copied from the source instead, and is still right.
    @Test(arguments: ["joined late", "short", "another folder", "named twice"])
    func aDraftThatCannotBeTheOutputIsSetAside(case name: String) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("blob")
        try Self.body.write(to: source)
        let output = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: output) }
        let draft = try #require(OutputDraft.open(in: name == "another folder" ? folder : output))
        defer { draft.close() }
        switch name {
        case "joined late": feed(draft, Self.body, from: 16_384)
        case "short": feed(draft, Self.body.prefix(Self.body.count - 1))
        default: feed(draft, Self.body)
        }
        if name == "named twice" {
            #expect(
                try publish(source, byteCount: Self.body.count, to: output.appendingPathComponent("first.jpg"), draft: draft) == .written)
        }
        let destination = output.appendingPathComponent("out.jpg")
        #expect(try publish(source, byteCount: Self.body.count, to: destination, draft: draft) == .written)
        #expect(try Data(contentsOf: destination) == Self.body)
        if name == "named twice" {
            let first = try FileManager.default.attributesOfItem(atPath: output.appendingPathComponent("first.jpg").path)
            let second = try FileManager.default.attributesOfItem(atPath: destination.path)
            #expect(first[.systemFileNumber] as? Int != second[.systemFileNumber] as? Int, "two names, two files")
        }
    }

    @Test func aDraftLetGoUnpublishedLeavesNothing() throws {
        let output = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: output) }
        let draft = try #require(OutputDraft.open(in: output))
        feed(draft, Self.body)
        draft.close()
        feed(draft, Self.body)  // bytes after closing are ignored, not written anywhere
        #expect(try names(in: output).isEmpty)
    }
}
