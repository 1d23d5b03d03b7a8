import Testing

@testable import ImgviewImaging

@Suite("Assembling animations within their limits")
struct AnimationAssemblerTests {
    let header = ImageHeader(
        format: .gif, storedWidth: 40, storedHeight: 20, orientation: .up,
        animation: AnimationSummary(frameCount: 10, duration: .seconds(1), loopCount: 0))

    func assemble(frames: Int, request: DecodeRequest, extraPixels: Int = 0) -> DecodedImage {
        var assembler = AnimationAssembler(header: header, canvasWidth: 40, canvasHeight: 20, request: request)
        let canvas = [UInt8](repeating: 255, count: 40 * 20 * 4)
        for index in 0..<frames {
            guard assembler.admitsAnotherFrame(extraPixels: extraPixels) else { break }
            canvas.withUnsafeBufferPointer { assembler.append(canvas: $0, declaredDelay: .milliseconds(10 * index)) }
        }
        return assembler.finish(loopCount: 0, totalFrames: frames, problem: nil)
    }

    @Test func framesAreReducedAndTimedAsBrowsersTimeThem() throws {
        let image = assemble(frames: 4, request: DecodeRequest(minimumSize: (5, 2)))
        let animation = try #require(image.animation)
        #expect(animation.frames.count == 4 && image.warning == nil)
        #expect(animation.frames.allSatisfy { $0.pixels.width == 10 && $0.pixels.height == 5 })
        #expect(image.pixels == animation.frames[0].pixels)
        // 0 and 10 ms are shown for 100 ms; 20 and 30 as they say.
        #expect(animation.frames.map(\.delay) == [.milliseconds(100), .milliseconds(100), .milliseconds(20), .milliseconds(30)])
        #expect(animation.duration == .milliseconds(250))
        #expect(image.pixelByteCount == 4 * 10 * 5 * 4, "every frame's pixels are counted")
    }

    @Test func aSingleFrameIsAStill() {
        let image = assemble(frames: 1, request: DecodeRequest())
        #expect(image.animation == nil && image.pixels.width == 40)
    }

    @Test func theFrameCountLimitCutsWithAWarning() {
        let limits = AnimationLimits(maxFrameCount: 3, maxComposedPixels: .max, maxKeptPixels: .max)
        let image = assemble(frames: 10, request: DecodeRequest(animationLimits: limits))
        #expect(image.animation?.frames.count == 3)
        #expect(image.warning == "animation cut short after 3 of 10 frames (at most 3 frames are kept)")
    }

    @Test func composingWorkIsBounded() {
        // 800 pixels a canvas, plus 200 of work of its own per frame: three fit in 3,000.
        let limits = AnimationLimits(maxFrameCount: 100, maxComposedPixels: 3_000, maxKeptPixels: .max)
        let image = assemble(frames: 10, request: DecodeRequest(animationLimits: limits), extraPixels: 200)
        #expect(image.animation?.frames.count == 3)
        #expect(image.warning?.contains("may not pass 3000 in all") == true)
    }

    @Test func keptPixelsAreBoundedAtTheDecodedScale() {
        // Reduced to 10×5 (50 pixels) a frame: 500 keep ten at that scale, six at full size would not fit.
        let limits = AnimationLimits(maxFrameCount: 100, maxComposedPixels: .max, maxKeptPixels: 500)
        #expect(assemble(frames: 10, request: DecodeRequest(minimumSize: (5, 2), animationLimits: limits)).animation?.frames.count == 10)
        let full = assemble(frames: 10, request: DecodeRequest(animationLimits: limits))
        #expect(full.animation == nil, "one 800-pixel frame is always kept, a second does not fit")
        #expect(full.warning?.contains("after 1 of 10 frames") == true)
    }

    @Test func framesAreTurnedUpright() throws {
        let turned = ImageHeader(format: .avif, storedWidth: 40, storedHeight: 20, orientation: .right)
        var assembler = AnimationAssembler(header: turned, canvasWidth: 40, canvasHeight: 20, request: DecodeRequest(minimumSize: (2, 5)))
        let canvas = [UInt8](repeating: 255, count: 40 * 20 * 4)
        #expect(assembler.factor == 4, "the minimum is upright: 2×5 is 5×2 stored")
        for _ in 0..<2 {
            _ = assembler.admitsAnotherFrame()
            canvas.withUnsafeBufferPointer { assembler.append(canvas: $0, declaredDelay: .milliseconds(50)) }
        }
        let frames = try #require(assembler.finish(loopCount: 2, totalFrames: 2, problem: nil).animation).frames
        #expect(frames.allSatisfy { $0.pixels.width == 5 && $0.pixels.height == 10 })
    }

    @Test func aProblemAndALimitAreBothReported() {
        var assembler = AnimationAssembler(
            header: header, canvasWidth: 40, canvasHeight: 20,
            request: DecodeRequest(animationLimits: AnimationLimits(maxFrameCount: 1, maxComposedPixels: .max, maxKeptPixels: .max)))
        let canvas = [UInt8](repeating: 0, count: 40 * 20 * 4)
        _ = assembler.admitsAnotherFrame()
        canvas.withUnsafeBufferPointer { assembler.append(canvas: $0, declaredDelay: .zero) }
        let admitted = assembler.admitsAnotherFrame()
        #expect(!admitted)
        let image = assembler.finish(loopCount: 0, totalFrames: nil, problem: "truncated GIF")
        #expect(image.warning == "truncated GIF; animation cut short after 1 frame (at most 1 frames are kept)")
    }
}
