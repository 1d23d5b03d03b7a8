import Foundation
import Testing

@testable import ImgviewFetching
@testable import ImgviewSupport

@Suite("Memory cache, freshness, retries, sizes, names")
struct CachePolicyTests {
    @Test func memoryCacheEvictsByCostAndCountInLRUOrder() {
        let cache = MemoryCache<String, Int>(costLimit: 100, countLimit: 3)
        cache.set(1, for: "a", cost: 40)
        cache.set(2, for: "b", cost: 40)
        #expect(cache.value(for: "a") == 1)  // a is now newer than b
        cache.set(3, for: "c", cost: 40)  // over 100: b goes
        #expect(cache.keys == ["c", "a"])
        cache.set(4, for: "d", cost: 1)
        cache.set(5, for: "e", cost: 1)  // count 4 > 3: a goes
        #expect(cache.keys == ["e", "d", "c"])
        #expect(cache.value(for: "b") == nil)
        cache.set(6, for: "huge", cost: 101)
        #expect(cache.value(for: "huge") == nil)
        let statistics = cache.statistics
        #expect(statistics.hits == 1)
        #expect(statistics.misses == 2)
        #expect(statistics.evictions == 2)
        #expect(statistics.count == 3)
        #expect(statistics.totalCost == 42)
    }

    @Test func freshnessFollowsTheServer() {
        let now = Date(timeIntervalSince1970: 1_000_000)
        let freshness = Freshness()
        #expect(freshness.verdict(headers: [:], now: now) == .store(freshUntil: now.addingTimeInterval(1800)))
        #expect(
            freshness.verdict(headers: ["Cache-Control": "public, max-age=60"], now: now) == .store(freshUntil: now.addingTimeInterval(60)))
        #expect(
            freshness.verdict(headers: ["cache-control": "max-age=60", "Age": "50"], now: now)
                == .store(freshUntil: now.addingTimeInterval(10)))
        #expect(freshness.verdict(headers: ["Cache-Control": "no-store"], now: now) == .doNotStore)
        #expect(freshness.verdict(headers: ["Cache-Control": "no-cache"], now: now) == .store(freshUntil: now))
        let expires = HTTPDate.string(from: now.addingTimeInterval(120))
        #expect(
            freshness.verdict(headers: ["Expires": expires, "Date": HTTPDate.string(from: now)], now: now)
                == .store(freshUntil: now.addingTimeInterval(120)))
        #expect(freshness.verdict(headers: ["Expires": "0"], now: now) == .store(freshUntil: now))
    }

    /// Found by the http-metadata fuzz target: this Expires value made Foundation's DateFormatter stop the process.
    @Test func datesThatAreNotPrintableASCIIAreNoDates() {
        #expect(HTTPDate.date(from: "Thu, 01 Dec 1994 16:00:00\u{5B8}MT\u{0B}Datate: \u{FFFD}") == nil)
        #expect(HTTPDate.date(from: "Thu, 01 Dec 1994 16:00:00 GMT") == Date(timeIntervalSince1970: 786_297_600))
        let now = Date(timeIntervalSince1970: 1_000_000)
        #expect(Freshness().verdict(headers: ["Expires": "Thu, 01 Dec 1994 16:00:00\u{5B8}MT"], now: now) == .store(freshUntil: now))
    }

    /// max-age and Age are delta-seconds: digits only, capped at 2³¹ (RFC 9111 §1.2.2); anything else is stale.
    @Test func freshnessReadsOnlyDeltaSeconds() {
        let now = Date(timeIntervalSince1970: 1_000_000)
        let freshness = Freshness()
        for invalid in ["1e9", "-5", "nan", "inf", "0x10", "60s", ""] {
            #expect(freshness.verdict(headers: ["Cache-Control": "max-age=\(invalid)"], now: now) == .store(freshUntil: now), "\(invalid)")
        }
        let capped = Date(timeIntervalSince1970: 1_000_000 + Freshness.maxLifetime)
        #expect(freshness.verdict(headers: ["Cache-Control": "max-age=99999999999999999999"], now: now) == .store(freshUntil: capped))
        #expect(freshness.verdict(headers: ["Cache-Control": "max-age=60", "Age": "soon"], now: now) == .store(freshUntil: now + 60))
        let farFuture = "Fri, 31 Dec 9999 23:59:59 GMT"
        #expect(freshness.verdict(headers: ["Expires": farFuture], now: now) == .store(freshUntil: capped))
    }

    @Test func retriesBackOffAndHonourRetryAfter() {
        let policy = RetryPolicy(maxRetries: 3, baseDelay: .seconds(1), maxDelay: .seconds(3), maxRetryAfter: .seconds(60))
        let now = Date(timeIntervalSince1970: 1_000_000)
        let first = policy.delay(beforeRetry: 0, retryAfter: nil, now: now)!
        #expect(first >= .milliseconds(800) && first <= .milliseconds(1200))
        #expect(policy.delay(beforeRetry: 2, retryAfter: nil, now: now)! <= .seconds(3))
        #expect(policy.delay(beforeRetry: 3, retryAfter: nil, now: now) == nil)
        #expect(policy.delay(beforeRetry: 0, retryAfter: "7", now: now) == .seconds(7))
        #expect(policy.delay(beforeRetry: 0, retryAfter: HTTPDate.string(from: now.addingTimeInterval(5)), now: now) == .seconds(5))
        #expect(policy.delay(beforeRetry: 0, retryAfter: "3600", now: now) == nil)
    }

    @Test func byteCounts() {
        #expect(ByteCount.format(999) == "999 B")
        #expect(ByteCount.format(1_800_000) == "1.8 MB")
        #expect(ByteCount.format(250_000_000) == "250 MB")
        #expect(ByteCount.parse("200M") == 200 << 20)
        #expect(ByteCount.parse("1.5G") == 1_610_612_736)
        #expect(ByteCount.parse("512") == 512)
        #expect(ByteCount.parse("64MB") == 64 << 20)
        #expect(ByteCount.parse("lots") == nil)
        #expect(ByteCount.parse("-1") == nil)
    }

    @Test func outputNamesStayInTheFolder() {
        #expect(OutputNaming.fileName(for: URL(string: "http://h/a/b/photo.jpg?x=1")!) == "photo.jpg")
        #expect(OutputNaming.fileName(for: URL(string: "http://h/a/..%2F..%2Fetc%2Fpasswd")!) == "passwd")
        #expect(OutputNaming.fileName(for: URL(string: "http://h/..")!) == nil)
        #expect(OutputNaming.fileName(for: URL(string: "http://h/")!) == nil)
        #expect(OutputNaming.fileName(for: URL(string: "http://h/%1B%5B31mred.png")!) == "[31mred.png")
        #expect(OutputNaming.fileName(for: URL(string: "http://h/.hidden.png")!) == "hidden.png")
        #expect(OutputNaming.fallbackName(catalogName: "image0", format: .jpeg) == "image0.jpg")
    }
}
