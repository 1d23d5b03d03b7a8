import Foundation
import Testing

@testable import ImgviewImaging
@testable import ImgviewPipeline

/// Zoom and pan as part of the render request: the region shown, the pixels decoded, the limits.
@Suite("Viewport")
struct ViewportTests {
    @Test func fitShowsTheWholeImageAndZoomShowsTheCentre() {
        #expect(Viewport.fit.region(width: 400, height: 300, boxAspect: 2) == .init(x: 0, y: 0, width: 400, height: 300))
        // A portrait image in a wide box is fitted by its height: zoom 2 shows half the height, and
        // as much of the width as the box has room for (here all of it).
        let tall = Viewport(zoom: 2, centerX: 0.5, centerY: 0.5).region(width: 300, height: 400, boxAspect: 2)
        #expect(tall == .init(x: 0, y: 100, width: 300, height: 200))
        // A wide image in a square box is fitted by its width: zoom 4 shows a quarter of it, square.
        let wide = Viewport(zoom: 4, centerX: 0.5, centerY: 0.5).region(width: 800, height: 400, boxAspect: 1)
        #expect(wide == .init(x: 300, y: 100, width: 200, height: 200))
    }

    @Test func theRegionStaysInsideTheImageAndPansByAQuarter() {
        let corner = Viewport(zoom: 4, centerX: 0, centerY: 1).region(width: 800, height: 400, boxAspect: 1)
        #expect(corner == .init(x: 0, y: 200, width: 200, height: 200))
        var view = Viewport(zoom: 4, centerX: 0.5, centerY: 0.5)
        view = view.panned(dx: 0.25, dy: 0, width: 800, height: 400, boxAspect: 1)
        #expect(view.region(width: 800, height: 400, boxAspect: 1).x == 350)
        // Panning past the edge stops there, and coming back starts moving at once.
        for _ in 0..<20 { view = view.panned(dx: 0.25, dy: 0, width: 800, height: 400, boxAspect: 1) }
        #expect(view.region(width: 800, height: 400, boxAspect: 1).x == 600)
        view = view.panned(dx: -0.25, dy: 0, width: 800, height: 400, boxAspect: 1)
        #expect(view.region(width: 800, height: 400, boxAspect: 1).x == 550)
        #expect(Viewport.fit.panned(dx: 1, dy: 1, width: 800, height: 400, boxAspect: 1) == .fit, "nothing to pan at fit")
    }

    @Test func zoomStepsBetweenFitAndTheClosestWorthHaving() {
        var view = Viewport.fit
        view = view.zoomed(by: Viewport.step, maximum: 2, width: 100, height: 100, boxAspect: 1)
        #expect(view.zoom == 1.5)
        view = view.zoomed(by: Viewport.step, maximum: 2, width: 100, height: 100, boxAspect: 1)
        #expect(view.zoom == 2)
        #expect(view.zoomed(by: Viewport.step, maximum: 2, width: 100, height: 100, boxAspect: 1) == view)
        #expect(view.zoomed(by: 1 / 3, maximum: 2, width: 100, height: 100, boxAspect: 1) == .fit)
        // One image pixel per output sample: a 512-pixel-wide image shown 64 cells wide goes to ×8;
        // an image smaller than its box no closer than fit.
        #expect(Viewport.maximumZoom(imageWidth: 512, imageHeight: 600, fittedWidth: 64, fittedHeight: 30) == 8)
        #expect(Viewport.maximumZoom(imageWidth: 16, imageHeight: 16, fittedWidth: 60, fittedHeight: 30) == 1)
    }

    /// Pixels whose left half is black and right half white.
    func halves(width: Int = 200, height: Int = 100) -> PixelBuffer {
        var bytes: [UInt8] = []
        for _ in 0..<height {
            for x in 0..<width { bytes += x < width / 2 ? [0, 0, 0, 255] : [255, 255, 255, 255] }
        }
        return PixelBuffer(width: width, height: height, bytes: bytes)
    }

    @Test func theRendererScalesOnlyTheVisibleRegion() {
        var options = RenderOptions(columns: 40, rows: 10, mode: .blocks, colors: .twoFiftySix, cellAspect: 2)
        let fitted = PreviewRenderer(options: options).render(halves())
        #expect(fitted.columns == 40)
        // Zoomed on the right edge, the view is white only.
        options.viewport = Viewport(zoom: 4, centerX: 1, centerY: 0.5)
        let zoomed = PreviewRenderer(options: options).render(halves())
        #expect(zoomed.columns == 40 && zoomed.rows == 10)
        #expect(zoomed != fitted)
        let colours = Set(zoomed.cells.flatMap { [$0.foreground, $0.background] })
        #expect(colours.count == 1, "one colour across the zoomed view: \(colours)")
    }

    @Test func aCloserViewDecodesMorePixelsButNeverMoreThanTheImageHas() {
        var options = RenderOptions(columns: 60, rows: 20, mode: .blocks, colors: .twoFiftySix, cellAspect: 2)
        let header = ImageHeader(format: .jpeg, storedWidth: 6000, storedHeight: 4000, orientation: .up)
        let fit = DecodePolicy.minimumSize(of: header, for: options)
        options.viewport = Viewport(zoom: 3, centerX: 0.5, centerY: 0.5)
        let zoomed = DecodePolicy.minimumSize(of: header, for: options)
        #expect(zoomed.width >= fit.width * 3 - 3 && zoomed.height >= fit.height * 3 - 3)
        options.viewport = Viewport(zoom: 500, centerX: 0.5, centerY: 0.5)
        let closest = DecodePolicy.minimumSize(of: header, for: options)
        #expect(closest.width == 6000 && closest.height == 4000)
    }
}
