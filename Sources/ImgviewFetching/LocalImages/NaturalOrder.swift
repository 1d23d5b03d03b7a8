/// Orders names the way people count and file managers sort: `img2` before `img10`, case ignored.
///
/// Runs of digits compare by their value (leading zeros only break ties), everything else byte by
/// byte with ASCII letters folded to lower case; `/` sorts before any other character, so a
/// folder's own files come before those of a folder whose name merely starts the same. Names that
/// compare equal this way fall back to their exact bytes, so the order is total and stable.
public enum NaturalOrder {
    /// Whether `lhs` sorts before `rhs`.
    public static func areInIncreasingOrder(_ lhs: String, _ rhs: String) -> Bool {
        compare(lhs, rhs) < 0
    }

    /// Negative when `lhs` sorts first, positive when `rhs` does, 0 only for identical strings.
    public static func compare(_ lhs: String, _ rhs: String) -> Int {
        var lhs = lhs
        var rhs = rhs
        return lhs.withUTF8 { left in rhs.withUTF8 { right in compare(left, right) } }
    }

    static func compare(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Int {
        var i = 0
        var j = 0
        var zerosTieBreak = 0
        while i < left.count, j < right.count {
            let a = left[i]
            let b = right[j]
            if isDigit(a), isDigit(b) {
                // Compare the two numbers: skip leading zeros, then the longer run is larger,
                // then the first differing digit decides.
                var startA = i
                var startB = j
                while startA < left.count, left[startA] == UInt8(ascii: "0") { startA += 1 }
                while startB < right.count, right[startB] == UInt8(ascii: "0") { startB += 1 }
                var endA = startA
                var endB = startB
                while endA < left.count, isDigit(left[endA]) { endA += 1 }
                while endB < right.count, isDigit(right[endB]) { endB += 1 }
                let lengthA = endA - startA
                let lengthB = endB - startB
                if lengthA != lengthB { return lengthA - lengthB }
                for offset in 0..<lengthA where left[startA + offset] != right[startB + offset] {
                    return Int(left[startA + offset]) - Int(right[startB + offset])
                }
                // Equal values: fewer leading zeros first ("1" before "01"), but only if nothing else differs.
                if zerosTieBreak == 0 { zerosTieBreak = (startA - i) - (startB - j) }
                i = endA
                j = endB
                continue
            }
            let foldedA = rank(a)
            let foldedB = rank(b)
            if foldedA != foldedB { return foldedA - foldedB }
            i += 1
            j += 1
        }
        let remaining = (left.count - i) - (right.count - j)
        if remaining != 0 { return remaining }
        if zerosTieBreak != 0 { return zerosTieBreak }
        // Equal but for case: the exact bytes decide.
        for (a, b) in zip(left, right) where a != b { return Int(a) - Int(b) }
        return left.count - right.count
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// The byte's place in the order: `/` first, ASCII letters without case.
    private static func rank(_ byte: UInt8) -> Int {
        if byte == UInt8(ascii: "/") { return -1 }
        if byte >= UInt8(ascii: "A"), byte <= UInt8(ascii: "Z") { return Int(byte) + 32 }
        return Int(byte)
    }
}
