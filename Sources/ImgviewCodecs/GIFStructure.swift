import ImgviewImaging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a GIF's blocks say, walked without decoding a pixel: the canvas, the frames with their
/// delays, and the loop count.
///
/// `inspect` needs the frame count and duration, which only a walk over the whole file gives;
/// giflib would allocate a record per frame on the way (`DGifGetImageDesc`), so the walk is
/// `GIFBlocks`', over the block structure alone (a length byte before every sub-block).
struct GIFStructure: Equatable {
    /// The logical screen, grown to hold the first frame when that frame is larger (as browsers do).
    var canvasWidth: Int
    var canvasHeight: Int
    var frameCount: Int
    /// The sum of the delays as they will be shown (`AnimationFrame.displayDelay`).
    var duration: Duration
    /// Plays in all: 1 without a NETSCAPE2.0 block, 0 (forever) when it says 0, else its count plus
    /// the first play (Chrome's reading; see DECISIONS.md).
    var loopCount: Int

    package static func read(_ bytes: Data) throws(ImageDecodingError) -> GIFStructure {
        let walked: Result<GIFStructure, ImageDecodingError> = bytes.withUnsafeBytes { raw in
            do throws(ImageDecodingError) {
                return .success(try walk(raw.bindMemory(to: UInt8.self)))
            } catch {
                return .failure(error)
            }
        }
        return try walked.get()
    }

    private static func walk(_ bytes: UnsafeBufferPointer<UInt8>) throws(ImageDecodingError) -> GIFStructure {
        func little16(_ offset: Int) -> Int { Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 }
        guard bytes.count >= 13 else { throw .truncated(.gif) }
        var structure = GIFStructure(
            canvasWidth: little16(6), canvasHeight: little16(8), frameCount: 0, duration: .zero, loopCount: 1)
        var delay = Duration.zero  // from the graphic control block before the next image

        let end = GIFBlocks.walk(byte: { $0 >= 0 && $0 < bytes.count ? bytes[$0] : nil }) { block in
            switch block {
            case .extension(let label, let first):
                let firstLength = Int(bytes[first])
                if label == 0xF9, firstLength >= 4, first + 4 < bytes.count {
                    delay = .milliseconds(10 * little16(first + 2))
                } else if label == 0xFF, firstLength == 11, first + 12 + 4 <= bytes.count,
                    ["NETSCAPE2.0", "ANIMEXTS1.0"].contains(where: { bytes[(first + 1)..<(first + 12)].elementsEqual($0.utf8) }),
                    bytes[first + 12] >= 3,
                    bytes[first + 13] == 1
                {
                    let count = little16(first + 14)
                    structure.loopCount = count == 0 ? 0 : count + 1
                }
            case .image(let offset):
                if structure.frameCount == 0 {
                    // The first frame may reach past a logical screen that is too small (or zero).
                    structure.canvasWidth = max(structure.canvasWidth, little16(offset + 1) + little16(offset + 5))
                    structure.canvasHeight = max(structure.canvasHeight, little16(offset + 3) + little16(offset + 7))
                }
                structure.frameCount += 1
                structure.duration += AnimationFrame.displayDelay(declared: delay)
                delay = .zero
            }
        }
        guard structure.frameCount > 0 else {
            throw end == .cut ? .truncated(.gif) : .corrupt(.gif, detail: "no image in the file")
        }
        guard structure.canvasWidth > 0, structure.canvasHeight > 0 else { throw .corrupt(.gif, detail: "zero width or height") }
        return structure
    }
}
