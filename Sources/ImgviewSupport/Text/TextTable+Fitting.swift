extension TextTable {
    /// The table laid out in at most `width` characters a line, as `docker ps` fits a terminal.
    ///
    /// The `elastic` column (a URL, say) gives up the middle of its cells first, down to
    /// `minimumElasticWidth`; if that is not enough, columns in `droppable` go, first listed first;
    /// then the elastic column shrinks further, to 12 characters. A terminal narrower than what is
    /// left gets lines that wrap rather than no table at all.
    public func rendered(width: Int, elastic: Int, minimumElasticWidth: Int = 20, droppable: [Int] = []) -> String {
        var dropped: Set<Int> = []
        var plan = layout(dropping: dropped, width: width, elastic: elastic, minimum: minimumElasticWidth)
        for column in droppable where !plan.fits {
            dropped.insert(column)
            plan = layout(dropping: dropped, width: width, elastic: elastic, minimum: minimumElasticWidth)
        }
        if !plan.fits {
            plan = layout(dropping: dropped, width: width, elastic: elastic, minimum: min(minimumElasticWidth, 12))
        }
        let keep = header.indices.filter { !dropped.contains($0) }
        func cells(_ row: [String]) -> [String] {
            keep.map { index in
                let cell = index < row.count ? row[index] : ""
                return index == elastic ? TextTable.elidingMiddle(cell, toWidth: plan.elasticWidth) : cell
            }
        }
        return TextTable(header: cells(header), rows: rows.map(cells)).rendered
    }

    private func layout(dropping dropped: Set<Int>, width: Int, elastic: Int, minimum: Int) -> (fits: Bool, elasticWidth: Int) {
        var widths = [Int](repeating: 0, count: header.count)
        for row in [header] + rows {
            for (index, cell) in row.enumerated() where index < widths.count { widths[index] = max(widths[index], cell.count) }
        }
        let kept = widths.indices.filter { !dropped.contains($0) }
        let others = kept.filter { $0 != elastic }.reduce(0) { $0 + widths[$1] } + 2 * max(0, kept.count - 1)
        let room = width - others
        let natural = widths[elastic]
        if room >= natural { return (true, natural) }
        let floor = min(natural, minimum)
        return (room >= floor, max(floor, room))
    }

    /// `text` cut to `width` columns by replacing its middle with `…`, keeping both ends
    /// (a URL's host and its file name); see `DisplayWidth.elidedMiddle`.
    public static func elidingMiddle(_ text: String, toWidth width: Int) -> String {
        DisplayWidth.elidedMiddle(text, to: width)
    }
}
