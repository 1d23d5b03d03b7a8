import Foundation
import Testing

@testable import ImgviewImaging
@testable import ImgviewPipeline

/// Zoom and pan in the pixel modes: the visible part fills the box, never past one image pixel
/// to one screen pixel.
@Suite("Viewport in the pixel modes")
struct ViewportRenderingTests {
    /// 400×300 pixels in four quadrants: red, green above; blue, white below.
    static let quadrants: PixelBuffer = {
        var bytes: [UInt8] = []
        for y in 0..<300 {
            for x in 0..<400 {
                switch (x < 200, y < 150) {
                case (true, true): bytes += [255, 0, 0, 255]
                case (false, true): bytes += [0, 255, 0, 255]
                case (true, false): bytes += [0, 0, 255, 255]
                case (false, false): bytes += [255, 255, 255, 255]
                }
            }
        }
        return PixelBuffer(width: 400, height: 300, bytes: bytes)
    }()

    /// 20×5 cells of 10×20 pixels: a box of 200×100 screen pixels. The 400×300 image fits it at
    /// 133×100, so one image pixel to one screen pixel is ×3.
    static func kitty(viewport: Viewport = .fit) -> RenderOptions {
        RenderOptions(
            columns: 20, rows: 5, cellAspect: 2, viewport: viewport,
            graphics: GraphicsOptions(graphics: .kitty, columns: 20, rows: 5, cell: CellPixelSize(width: 10, height: 20)))
    }

    /// The RGB pixels a kitty preview carries, with their size.
    static func pixels(of preview: RenderedPreview) throws -> (width: Int, height: Int, bytes: [UInt8]) {
        let graphics = try #require(preview.graphics)
        let commands = GraphicsEncodingTests.kittyCommands(graphics.bytes)
        let width = try #require(commands.first?.keys["s"].flatMap { Int($0) })
        let height = try #require(commands.first?.keys["v"].flatMap { Int($0) })
        let bytes = try #require(Data(base64Encoded: commands.map(\.payload).joined()))
        return (width, height, Array(bytes))
    }

    static func render(_ pixels: PixelBuffer, _ options: RenderOptions) throws -> RenderedPreview {
        let header = ImageHeader(format: .png, storedWidth: pixels.width, storedHeight: pixels.height, orientation: .up)
        return try RenderedPreview.rendering(DecodedImage(header: header, pixels: pixels), options: options, pngEncoder: nil).preview
    }

    @Test func theClosestViewShowsTheImagesOwnPixelsFillingTheBox() throws {
        #expect(Self.kitty().maximumZoom(width: 400, height: 300) == 3)
        let fit = try Self.pixels(of: Self.render(Self.quadrants, Self.kitty()))
        #expect(fit.width == 133 && fit.height == 100)
        // ×3 on the top-left corner: 200×100 of the image, the whole red quadrant's top, one to one.
        let zoomed = try Self.render(Self.quadrants, Self.kitty(viewport: Viewport(zoom: 3, centerX: 0.1, centerY: 0.1)))
        #expect(zoomed.graphics?.layout == GraphicsLayout(pixelWidth: 200, pixelHeight: 100, columns: 20, rows: 5))
        let shown = try Self.pixels(of: zoomed)
        #expect(shown.width == 200 && shown.height == 100)
        #expect(stride(from: 0, to: shown.bytes.count, by: 3).allSatisfy { shown.bytes[$0..<$0 + 3] == [255, 0, 0] })
    }

    @Test func aViewCloserThanOnePixelToOneIsShownAtOneToOne() throws {
        let closest = try Self.render(Self.quadrants, Self.kitty(viewport: Viewport(zoom: 3, centerX: 0.9, centerY: 0.9)))
        let closer = try Self.render(Self.quadrants, Self.kitty(viewport: Viewport(zoom: 40, centerX: 0.9, centerY: 0.9)))
        #expect(closer == closest)
        let shown = try Self.pixels(of: closer)
        #expect(shown.width == 200 && shown.height == 100, "never more screen pixels than the image's 200×100 shown")
        #expect(stride(from: 0, to: shown.bytes.count, by: 3).allSatisfy { shown.bytes[$0..<$0 + 3] == [255, 255, 255] })
        // Text may look closer: there a cell, not a screen pixel, shows one image pixel.
        var text = Self.kitty()
        text.graphics = nil
        #expect(text.maximumZoom(width: 400, height: 300) > 3)
    }

    @Test func anImageSmallerThanItsBoxIsFittedAndNotZoomed() throws {
        let small = PixelBuffer(width: 40, height: 30, filledWith: (10, 20, 30, 255))
        #expect(Self.kitty().maximumZoom(width: 40, height: 30) == 1)
        let fit = try Self.render(small, Self.kitty())
        let zoomed = try Self.render(small, Self.kitty(viewport: Viewport(zoom: 2, centerX: 0.5, centerY: 0.5)))
        #expect(zoomed == fit)
        #expect(fit.graphics?.layout.pixelHeight == 30, "drawn with its own pixels, never scaled up")
    }

    @Test func panningMovesThePixelsShown() throws {
        // ×2 shows 300×150 of the image in 200×100 pixels: x 0–300 at the left edge, 100–400 at
        // the right, so screen column 100 shows image column 150 (red), then 250 (green).
        let left = try Self.pixels(of: Self.render(Self.quadrants, Self.kitty(viewport: Viewport(zoom: 2, centerX: 0, centerY: 0))))
        let right = try Self.pixels(of: Self.render(Self.quadrants, Self.kitty(viewport: Viewport(zoom: 2, centerX: 1, centerY: 0))))
        #expect(left.width == 200 && left.height == 100 && right.width == 200 && right.height == 100)
        #expect(left.bytes[100 * 3..<101 * 3] == [255, 0, 0] && right.bytes[100 * 3..<101 * 3] == [0, 255, 0])
        #expect(left.bytes[199 * 3..<200 * 3] == [0, 255, 0] && right.bytes[199 * 3..<200 * 3] == [0, 255, 0])
    }

    @Test func aCloserPixelViewDecodesMoreButNeverMoreThanTheImageHas() {
        let header = ImageHeader(format: .jpeg, storedWidth: 4000, storedHeight: 3000, orientation: .up)
        let fit = DecodePolicy.minimumSize(of: header, for: Self.kitty())
        let zoomed = DecodePolicy.minimumSize(of: header, for: Self.kitty(viewport: Viewport(zoom: 4, centerX: 0.5, centerY: 0.5)))
        #expect(zoomed.width >= fit.width * 4 - 4 && zoomed.height >= fit.height * 4 - 4)
        #expect(zoomed.width < 4000 && zoomed.height < 3000)
        let closest = DecodePolicy.minimumSize(of: header, for: Self.kitty(viewport: Viewport(zoom: 1000, centerX: 0.5, centerY: 0.5)))
        #expect(closest.width == 4000 && closest.height == 3000)
    }
}
