extension StringProtocol {
    /// Without the spaces and tabs at either end (HTTP's optional whitespace, a typed value).
    public func trimmingSpaces() -> String {
        trimming { $0 == " " || $0 == "\t" }
    }

    /// Without white space, line breaks included, at either end.
    public func trimmingWhitespace() -> String {
        trimming { $0.isWhitespace }
    }

    /// Without the characters `isTrimmed` accepts at either end.
    public func trimming(_ isTrimmed: (Character) -> Bool) -> String {
        guard let first = firstIndex(where: { !isTrimmed($0) }), let last = lastIndex(where: { !isTrimmed($0) }) else { return "" }
        return String(self[first...last])
    }

    /// Padded with spaces, or cut, to `length` characters: a column of a plain-text table.
    public func padded(toLength length: Int) -> String {
        count >= length ? String(prefix(length)) : String(self) + String(repeating: " ", count: length - count)
    }
}
