/// The candidates of an `img` or `source` element's `srcset`, and the choice of the largest.
///
/// WHATWG's "parse a srcset attribute", simplified: candidates are separated by commas; a URL is
/// a run of non-space characters and may itself hold commas (`https://x/d,e.jpg 1x` is one
/// candidate); a URL that ends in commas has no descriptors; descriptors run to the next comma
/// outside parentheses. `320w` is a width, `2x` a density, none at all is `1x`; other
/// descriptors (`h`, or text that is neither) are ignored.
public enum Srcset {
    /// One candidate: its URL as written, and what its descriptors say.
    public struct Candidate: Sendable, Equatable {
        public let url: String
        public let width: Int?
        public let density: Double?

        public init(url: String, width: Int? = nil, density: Double? = nil) {
            self.url = url
            self.width = width
            self.density = density
        }
    }

    /// The candidates of `text`, in order.
    public static func candidates(_ text: String) -> [Candidate] {
        let scalars = Array(text.unicodeScalars)
        var candidates: [Candidate] = []
        var index = 0
        func isSpace(_ scalar: Unicode.Scalar) -> Bool {
            scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar == "\u{0C}"
        }
        while index < scalars.count {
            while index < scalars.count, isSpace(scalars[index]) || scalars[index] == "," { index += 1 }
            guard index < scalars.count else { break }
            let start = index
            while index < scalars.count, !isSpace(scalars[index]) { index += 1 }
            var url = String(String.UnicodeScalarView(scalars[start..<index]))
            var descriptors: [String] = []
            if url.hasSuffix(",") {
                while url.hasSuffix(",") { url.removeLast() }
            } else {
                var depth = 0
                var token = String.UnicodeScalarView()
                func endToken() {
                    if !token.isEmpty { descriptors.append(String(token)) }
                    token = String.UnicodeScalarView()
                }
                while index < scalars.count {
                    let scalar = scalars[index]
                    index += 1
                    if scalar == "(" { depth += 1 }
                    if scalar == ")" { depth = max(0, depth - 1) }
                    if scalar == ",", depth == 0 { break }
                    if isSpace(scalar), depth == 0 {
                        endToken()
                    } else {
                        token.append(scalar)
                    }
                }
                endToken()
            }
            guard !url.isEmpty else { continue }
            var width: Int?
            var density: Double?
            for descriptor in descriptors {
                let value = descriptor.dropLast()
                switch descriptor.last {
                case "w": width = Int(value).flatMap { $0 > 0 ? $0 : nil } ?? width
                case "x": density = Double(value).flatMap { $0 > 0 && $0.isFinite ? $0 : nil } ?? density
                default: break
                }
            }
            candidates.append(Candidate(url: url, width: width, density: density))
        }
        return candidates
    }

    /// The URL of the largest candidate of `srcset`, with `src` counting as a `1x` candidate after
    /// them: the widest when any candidate gives a width, else the densest; the first among equals.
    public static func largest(srcset: String?, src: String?) -> String? {
        var candidates = srcset.map(Self.candidates) ?? []
        if let src, !src.isEmpty { candidates.append(Candidate(url: src)) }
        guard var best = candidates.first else { return nil }
        if candidates.contains(where: { $0.width != nil }) {
            for candidate in candidates where (candidate.width ?? 0) > (best.width ?? 0) { best = candidate }
        } else {
            for candidate in candidates where (candidate.density ?? 1) > (best.density ?? 1) { best = candidate }
        }
        return best.url
    }
}
