import Foundation
import Testing

@Suite("show --mode and IMGVIEW_MODE, run as a process")
struct ShowModeTests {
    static let image = ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/03_chelsea_cat.png").path

    @Test func anExplicitPixelModeIsObeyedIntoAPipe() async throws {
        let sixel = try await ImgviewProcess.run(["show", Self.image, "--mode", "sixel", "--size", "20x6"])
        #expect(sixel.status == 0 && sixel.stderr.isEmpty)
        // 20×6 cells of 10×20 pixels (the usual size, since a pipe has none): 200×120 fits 180×120.
        #expect(sixel.stdout.hasPrefix("\u{1B}P0;1;0q\"1;1;180;120#0;2;"))
        #expect(sixel.stdout.hasSuffix("\u{1B}\\\n"))
        let kitty = try await ImgviewProcess.run(["show", Self.image, "--size", "20x6"], environment: ["IMGVIEW_MODE": "kitty"])
        #expect(kitty.stdout.hasPrefix("\u{1B}_Ga=T,i=1,q=2,f=24,s=180,v=120,m=1;"), "raw pixels in chunks")
        let iterm = try await ImgviewProcess.run(["show", Self.image, "--size", "20x6", "--mode", "iterm"])
        #expect(iterm.stdout.hasPrefix("\u{1B}]1337;File=inline=1;size="))
        #expect(iterm.stdout.contains(";width=18;height=6;preserveAspectRatio=1:iVBORw0KGgo"), "a PNG over 18×6 cells")
    }

    @Test func theOptionWinsOverTheEnvironment() async throws {
        let result = try await ImgviewProcess.run(
            ["show", Self.image, "--size", "20x6", "--mode", "ascii", "--colors", "none"], environment: ["IMGVIEW_MODE": "sixel"])
        #expect(result.status == 0 && !result.stdout.contains("\u{1B}"))
    }

    @Test func autoIntoAPipeIsTextAndAsksNothing() async throws {
        let result = try await ImgviewProcess.run(
            ["show", Self.image, "--size", "20x6", "--colors", "256"], environment: ["IMGVIEW_MODE": "auto", "TERM": "xterm-kitty"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("\u{1B}[38;5;") && !result.stdout.contains("\u{1B}_G") && !result.stdout.contains("\u{1B}[c"))
    }

    @Test func anUnknownModeIsAUsageError() async throws {
        let environment = try await ImgviewProcess.run(["show", Self.image], environment: ["IMGVIEW_MODE": "pixels\u{1B}[2J"])
        #expect(environment.status == 2)
        #expect(environment.errorLine == "imgview: IMGVIEW_MODE=pixels?[2J is not a mode (auto, kitty, iterm, sixel, blocks or ascii)")
        let option = try await ImgviewProcess.run(["show", Self.image, "--mode", "png"])
        #expect(option.status == 2 && option.stderr.contains("--mode"))
    }

    @Test func browseAndDemoTakeTheSameModesAndRefuseAnUnknownOneFirst() async throws {
        let message = "imgview: IMGVIEW_MODE=pixels is not a mode (auto, kitty, iterm, sixel, blocks or ascii)"
        for arguments in [["browse", Self.image], ["demo", "--report"]] {
            let result = try await ImgviewProcess.run(arguments, environment: ["IMGVIEW_MODE": "pixels"])
            #expect(result.status == 2 && result.errorLine == message, "\(arguments): \(result.stderr)")
            let option = try await ImgviewProcess.run(arguments + ["--mode", "png"])
            #expect(option.status == 2 && option.stderr.contains("--mode"), "\(arguments): \(option.stderr)")
        }
        // A good mode passes, and browse without a terminal says it needs one.
        let browse = try await ImgviewProcess.run(["browse", Self.image, "--mode", "sixel"])
        #expect(browse.status == 2 && browse.stderr.contains("needs a terminal"), "\(browse.stderr)")
    }

    @Test func transparencyIsDrawnOverTheBackgroundAsked() async throws {
        // A fully transparent PNG over white: every register set is white (100;100;100).
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("ImgviewCodecsTests/Fixtures/rgb-trns.png").path
        let result = try await ImgviewProcess.run(["show", fixture, "--mode", "sixel", "--size", "4x2", "--background", "#ffffff"])
        #expect(result.status == 0)
        #expect(result.stdout.contains(";2;100;100;100"), "the transparent part is white")
    }
}
