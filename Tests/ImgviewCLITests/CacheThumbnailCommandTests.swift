import Foundation
import ImgviewCodecs
import ImgviewImaging
import ImgviewServer
import ImgviewTestSupport
import Testing

@testable import ImgviewFetching
@testable import ImgviewSupport

/// A contact sheet of URLs keeps its thumbnails beside the cached bodies, the next one uses them
/// (not the bodies, not the network), and the `cache` commands count and remove them.
extension CacheCommandTests {
    @Test func aSheetOfURLsKeepsThumbnailsInTheCacheUsesThemNextTimeAndCacheCommandsRemoveThem() async throws {
        try await withSetup { setup in
            let urls = [setup.url("/hopper.jpg").absoluteString, setup.url("/cat.png").absoluteString]
            let sheet = ["show", "--grid", "2x1", "--size", "60x20", "--mode", "blocks", "--colors", "full"] + urls
            let first = try await setup.run(sheet)
            #expect(first.status == 0, "\(first.stderr)")
            let disk = try setup.disk()
            let entries = disk.entries()
            #expect(entries.count == 2)
            let sizes = disk.thumbnailSizes()
            #expect(Set(sizes.keys) == Set(entries.map(\.sha256)), "one thumbnail a body: \(sizes)")
            let stats = try await setup.run(["cache", "stats", "--json"])
            #expect(stats.stdout.contains("\"thumbnails\": 2,"), "\(stats.stdout)")
            let listed = try await setup.run(["cache", "ls", "--json"])
            #expect(listed.stdout.components(separatedBy: "\"thumbnails\": [256]").count == 3, "\(listed.stdout)")

            // Painted green, the thumbnails show on the next sheet: they are what it draws, and
            // the fresh entries need no request.
            let green = "\u{1B}[38;2;0;255;0"
            #expect(!first.stdout.contains(green))
            for (hash, pixels) in sizes {
                for size in pixels {
                    let stored = try #require(disk.thumbnail(ofBody: hash, pixels: size).flatMap(FreedesktopThumbnails.decode))
                    let painted = try #require(
                        FreedesktopThumbnails.encode(
                            PixelBuffer(width: stored.width, height: stored.height, filledWith: (0, 255, 0, 255)), texts: []))
                    try painted.write(to: setup.cache.appendingPathComponent("v1/thumbnails/\(hash.prefix(2))/\(hash)-\(size).png"))
                }
            }
            let requests = setup.server.requests().count
            let second = try await setup.run(sheet)
            #expect(second.status == 0, "\(second.stderr)")
            // Both cells green on each of their lines (a run of one colour is one escape).
            let greenLines = second.stdout.split(separator: "\n").filter { $0.components(separatedBy: green).count == 3 }
            #expect(greenLines.count >= 10, "the stored thumbnails are drawn: \(second.stdout)")
            #expect(setup.server.requests().count == requests)

            // `cache clear NAME` takes the body's thumbnail with it; `verify` finds nothing wrong;
            // `cache clear` takes the rest.
            let hopper = try #require(entries.first { $0.url == setup.url("/hopper.jpg") })
            let removed = try await setup.run(["cache", "clear", "hopper"])
            #expect(removed.status == 0, "\(removed.stderr)")
            #expect(disk.thumbnail(ofBody: hopper.sha256, pixels: 256) == nil)
            #expect(disk.thumbnailTotals().count == 1)
            let verified = try await setup.run(["cache", "verify", "--json"])
            #expect(verified.status == 0 && verified.stdout.contains("\"thumbnails\": 1,"), "\(verified.stdout)")
            let cleared = try await setup.run(["cache", "clear"])
            #expect(cleared.status == 0, "\(cleared.stderr)")
            #expect(disk.thumbnailTotals().count == 0)
            let after = try await setup.run(["cache", "stats", "--json"])
            #expect(after.stdout.contains("\"thumbnails\": 0,"), "\(after.stdout)")
        }
    }

    @Test func pruneRemovesTheThumbnailsOfWhatItRemoves() async throws {
        try await withSetup { setup in
            let sheet = ["show", "--grid", "2x1", "--size", "60x20", "--mode", "ascii", setup.url("/hopper.jpg").absoluteString]
            let made = try await setup.run(sheet)
            #expect(made.status == 0, "\(made.stderr)")
            #expect(try setup.disk().thumbnailTotals().count == 1)
            let pruned = try await setup.run(["cache", "prune", "--max-size", "0"])
            #expect(pruned.status == 0, "\(pruned.stderr)")
            #expect(try setup.disk().entries().isEmpty)
            #expect(try setup.disk().thumbnailTotals().count == 0)
        }
    }
}
