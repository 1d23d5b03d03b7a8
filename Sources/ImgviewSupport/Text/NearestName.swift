/// The known name a mistyped one most likely meant, for "did you mean …?" in messages.
public enum NearestName {
    /// The name in `names` nearest to `word` (case ignored), if one is at most two edits away.
    public static func to(_ word: String, among names: [String]) -> String? {
        let target = Array(word.lowercased())
        var best: (name: String, distance: Int)?
        for name in names {
            let distance = editDistance(target, Array(name.lowercased()))
            if distance <= 2, distance < (best?.distance ?? .max) { best = (name, distance) }
        }
        return best?.name
    }

    /// Levenshtein distance: insertions, deletions and substitutions.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
