internal import Crypto

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Whether an image is in the disk cache, and fresh: the CACHED column of `list`.
public enum CacheState: String, Sendable {
    case fresh
    case stale
    case notCached = "no"
}

extension DiskCache {
    /// The state of `url`: cached only when both its entry and its blob are there.
    public func state(of url: URL, at now: Date) -> CacheState {
        guard let entry = entry(for: url), hasBlob(entry) else { return .notCached }
        return entry.isFresh(at: now) ? .fresh : .stale
    }

    /// The states of the URLs `addresses` (absolute URL strings), in order, for `list`: the
    /// entries folder is listed once and only the entries that exist are read, so 100,000 catalog
    /// images cost a hash each, not 100,000 failed opens.
    public func states(of addresses: [String], at now: Date) -> [CacheState] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: entriesFolder.path), !names.isEmpty else {
            return addresses.map { _ in .notCached }
        }
        // An entry's name starts with its URL's SHA-256 in hex: compare the first 8 bytes as a
        // number, and spell out a name only for the URLs that may have one.
        let prefixes = Set(names.compactMap { UInt64($0.prefix(16), radix: 16) })
        return addresses.map { address in
            var utf8 = address
            let digest = utf8.withUTF8 { SHA256.hash(data: $0) }
            let prefix = digest.withUnsafeBytes { bytes in bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
            guard prefixes.contains(prefix), let url = URL(string: address) else { return .notCached }
            return state(of: url, at: now)
        }
    }
}
