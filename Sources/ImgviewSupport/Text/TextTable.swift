/// Lays out rows of text in aligned columns, as `ls -l` and `docker ps` print them.
public struct TextTable: Sendable {
    public let header: [String]
    public let rows: [[String]]

    public init(header: [String], rows: [[String]]) {
        self.header = header
        self.rows = rows
    }

    /// The table, one line per row, columns separated by two spaces, the last column not padded.
    public var rendered: String {
        let all = [header] + rows
        let columns = all.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: columns)
        for row in all {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        return all.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: max(0, widths[index] - cell.count))
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }
}
