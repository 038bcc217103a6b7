/// One finished step's result pane: how it was done and how long it took, how it was checked,
/// rows before → after, and the tables of what it produced (the new column, sample rows).
enum StepPane {
    static func render(_ result: StepResult, _ state: ConsoleState, _ grid: inout Grid, _ area: Screens.Body, heading: String) {
        let g = state.glyphs
        var lines: [(text: String, style: CellStyle, indent: Int)] = []
        func line(_ text: String, _ style: CellStyle = .normal, indent: Int = 0) { lines.append((text, style, indent)) }
        line("\(g.check) \(heading): \(result.from) \(g.arrow) \(result.to)", .good)
        line("\(result.how), \(String(format: "%.1f", result.seconds)) s", .dim)
        // The loss first, in the error colour: never only a count on another screen.
        if !result.dropped.isEmpty {
            line("Dropped, as planned:", .bad)
            for drop in result.dropped {
                for text in MigrateScreen.wrap(drop.sentence, width: area.width - 2) { line(text, .bad, indent: 2) }
            }
        }
        for text in MigrateScreen.wrap("Verified: " + result.verification, width: area.width) { line(text) }
        let droppedEntities = Set(result.dropped.filter(\.isEntity).map(\.what))
        let changed = result.rows.filter { $0.before != $0.after && !droppedEntities.contains($0.entity) }
        if !changed.isEmpty {
            line("")
            for row in changed.prefix(4) {
                line("\(row.entity): \(row.before.map(String.init) ?? g.none) \(g.arrow) \(row.after.map(String.init) ?? g.none) rows")
            }
        }
        for table in result.tables {
            line("")
            // A table without columns is prose (a lesson, the demo's own work): wrapped, not cut.
            guard !table.columns.isEmpty else {
                for text in MigrateScreen.wrap(table.title, width: area.width) { line(text, .dim) }
                continue
            }
            for text in MigrateScreen.wrap(table.title, width: area.width) { line(text, .bold) }
            for text in layout(table, width: area.width - 1) { line(text.text, text.header ? .dim : .normal, indent: 1) }
        }
        // What does not fit is counted on the last line, never cut off unsaid.
        guard area.height > 0 else { return }
        let shown = lines.count <= area.height ? lines[...] : lines.prefix(area.height - 1)
        for (offset, line) in shown.enumerated() {
            grid.put(line.text, x: area.x + line.indent, y: area.y + offset, style: line.style, limit: area.width - line.indent)
        }
        if shown.count < lines.count {
            let hidden = lines.count - shown.count
            grid.put("\(g.ellipsis) \(hidden) more line\(hidden == 1 ? "" : "s")", x: area.x, y: area.y + shown.count, style: .dim, limit: area.width)
        }
    }

    /// A table's lines, columns padded to their widest cell and cut to fit `width`.
    static func layout(_ table: StepResult.Table, width: Int) -> [(text: String, header: Bool)] {
        let cells = [table.columns] + table.rows
        let widths = table.columns.indices.map { column in
            min(cells.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0, 28)
        }
        return cells.enumerated().map { number, row in
            let text = row.enumerated().map { index, cell in
                let fitted = cell.count > widths[min(index, widths.count - 1)] ? String(cell.prefix(max(widths[index] - 1, 1))) + "…" : cell
                return fitted.padding(toLength: widths[min(index, widths.count - 1)], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
            return (String(text.prefix(width)), number == 0)
        }
    }
}
