/// A mouse event the terminal reported, at a cell counted from 0.
public struct MouseEvent: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A button went down: 0 left, 1 middle, 2 right.
        case press(button: Int)
        case release(button: Int)
        case wheelUp
        case wheelDown
        /// The pointer moved with a button held (reported only while one is).
        case drag(button: Int)
    }

    public var kind: Kind
    public var column: Int
    public var row: Int

    public init(_ kind: Kind, column: Int, row: Int) {
        self.kind = kind
        self.column = column
        self.row = row
    }
}
