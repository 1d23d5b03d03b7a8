/// How urgently the pipeline should do a piece of work: what the user looks at comes first,
/// what they may look at next (neighbouring tabs) after it.
public enum WorkPriority: Int, Sendable, Comparable, CaseIterable {
    case low
    case normal
    case high

    public static func < (lhs: WorkPriority, rhs: WorkPriority) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
