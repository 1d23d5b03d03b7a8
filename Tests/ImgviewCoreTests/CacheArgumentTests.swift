import Foundation
import Testing

@testable import ImgviewSupport

/// Sizes and durations as `cache prune` reads them, and the table layout `cache ls` prints.
@Suite("Cache arguments and layout")
struct CacheArgumentTests {
    static let sizes: [(String, Int64)] = [
        ("500K", 512_000), ("200M", 209_715_200), ("1.5G", 1_610_612_736), ("200m", 209_715_200), ("0", 0), ("512", 512),
        ("64MB", 67_108_864), ("2T", 2_199_023_255_552),
    ]

    @Test(arguments: sizes)
    func sizesParse(text: String, bytes: Int64) {
        #expect(ByteCount.parse(text) == bytes)
    }

    @Test(arguments: ["", "M", "12X", "-5M", "1.2.3G", "nanM", "infG", "99999999999T", "1e30"])
    func badSizesAreRefused(text: String) {
        #expect(ByteCount.parse(text) == nil)
    }

    static let durations: [(String, TimeInterval)] = [
        ("30s", 30), ("30m", 1800), ("12h", 43200), ("7d", 604_800), ("2w", 1_209_600), ("1.5d", 129_600), ("1d12h", 129_600),
        ("7D", 604_800), (" 10m ", 600),
    ]

    @Test(arguments: durations)
    func durationsParse(text: String, seconds: TimeInterval) {
        #expect(DurationText.parse(text) == seconds)
    }

    @Test(arguments: ["", "7", "d", "7x", "-7d", "7d3", "1..5d", "7 d", "99999999999w"])
    func badDurationsAreRefused(text: String) {
        #expect(DurationText.parse(text) == nil)
    }

    @Test func durationsFormatInTheirLargestUnit() {
        #expect(DurationText.format(0) == "0s")
        #expect(DurationText.format(59) == "59s")
        #expect(DurationText.format(25 * 60 + 10) == "25m")
        #expect(DurationText.format(3 * 3600 + 59 * 60) == "3h")
        #expect(DurationText.format(12 * 86400) == "12d")
        #expect(DurationText.format(-5) == "0s")
    }

    @Test func elisionKeepsBothEnds() {
        let url = "https://example.org/a/very/long/path/to/image.jpg"
        let elided = TextTable.elidingMiddle(url, toWidth: 21)
        #expect(elided == "https://ex…/image.jpg")
        #expect(elided.count == 21)
        #expect(TextTable.elidingMiddle("short", toWidth: 10) == "short")
        #expect(TextTable.elidingMiddle("abc", toWidth: 1) == "a")
    }

    @Test func aTableFitsTheWidthByElidingThenDropping() {
        let table = TextTable(
            header: ["NAME", "URL", "SIZE", "ETAG"],
            rows: [["a", "https://example.org/" + String(repeating: "x", count: 60) + "/a.jpg", "1.2 MB", "\"abcdef\""]])
        let natural = table.rendered
        #expect(natural == table.rendered(width: 200, elastic: 1, droppable: [3]))

        let fitted = table.rendered(width: 60, elastic: 1, droppable: [3])
        for line in fitted.split(separator: "\n") { #expect(line.count <= 60) }
        #expect(fitted.contains("https://example.or…xxxxxxxxxxx/a.jpg"))
        #expect(fitted.contains("ETAG"))

        // Too narrow even with the URL at its minimum: the ETag column goes.
        let narrow = table.rendered(width: 36, elastic: 1, minimumElasticWidth: 20, droppable: [3])
        #expect(!narrow.contains("ETAG"))
        for line in narrow.split(separator: "\n") { #expect(line.count <= 36) }
    }
}
