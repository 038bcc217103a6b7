/// One finished step's result pane: how it was done and how long it took, how it was checked,
/// rows before → after, and the tables of what it produced (the new column, sample rows).
enum StepPane {
    /// Draws the pane (the running screen's view of the last step done): from its first line,
    /// or, in step mode's pause after the step, from where j/k scrolled it.
    static func render(
        _ result: StepResult, _ state: ConsoleState, _ grid: inout Grid, _ area: Screens.Body, heading: String
    ) {
        let paused: Bool
        if case .pausedAfterStep = state.mode { paused = true } else { paused = false }
        Panes.draw(
            lines(result, state, width: area.width, heading: heading), top: paused ? state.pane.top : 0,
            focused: false, area, &grid, glyphs: state.glyphs, canFocus: !state.isBusy,
            hint: paused ? ": j/k scroll" : nil)
    }

    /// Every line of the pane: the loss first, then how it was checked, rows that changed, tables.
    static func lines(_ result: StepResult, _ state: ConsoleState, width: Int, heading: String) -> [PaneLine] {
        let g = state.glyphs
        var lines: [PaneLine] = []
        func line(_ text: String, _ style: CellStyle = .normal, indent: Int = 0) {
            lines.append(PaneLine(text: text, style: style, indent: indent))
        }
        line("\(g.check) \(heading): \(result.versions(arrow: g.arrow))", .good)
        line("\(result.how), \(String(format: "%.1f", result.seconds)) s", .dim)
        // The loss first, in the error colour: never only a count on another screen.
        if !result.dropped.isEmpty {
            line("Dropped, as planned:", .bad)
            for drop in result.dropped {
                for text in MigrateScreen.wrap(drop.sentence, width: width - 2) { line(text, .bad, indent: 2) }
            }
        }
        for text in MigrateScreen.wrap("Verified: " + result.verification, width: width) { line(text) }
        let droppedEntities = Set(result.dropped.filter(\.isEntity).map(\.what))
        let changed = result.rows.filter { $0.before != $0.after && !droppedEntities.contains($0.entity) }
        if !changed.isEmpty {
            line("")
            for row in changed {
                line(
                    """
                    \(row.entity): \(row.before.map(String.init) ?? g.none) \(g.arrow) \
                    \(row.after.map(String.init) ?? g.none) rows
                    """
                )
            }
        }
        for table in result.tables {
            line("")
            // A table without columns is prose (a lesson, the demo's own work): wrapped, not cut.
            guard !table.columns.isEmpty else {
                for text in MigrateScreen.wrap(table.title, width: width) { line(text, .dim) }
                continue
            }
            for text in MigrateScreen.wrap(table.title, width: width) { line(text, .bold) }
            for text in layout(table, width: width - 1) { line(text.text, text.header ? .dim : .normal, indent: 1) }
        }
        return lines
    }

    /// A table's lines, columns padded to their widest cell and cut to fit `width`, with `…`.
    static func layout(_ table: StepResult.Table, width: Int) -> [(text: String, header: Bool)] {
        let cells = [table.columns] + table.rows
        let widths = table.columns.indices.map { column in
            min(cells.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0, 28)
        }
        return cells.enumerated().map { number, row in
            let text = row.enumerated().map { index, cell in
                let fitted =
                    cell.count > widths[min(index, widths.count - 1)]
                    ? String(cell.prefix(max(widths[index] - 1, 1))) + "…" : cell
                return fitted.padding(toLength: widths[min(index, widths.count - 1)], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
            // A row wider than the pane ends in `…` at its last column, a header as much as a row.
            let cut =
                DisplayWidth.of(text) > width
                ? String(DisplayWidth.prefix(text, columns: max(width - 1, 0))) + "…" : text
            return (cut, number == 0)
        }
    }
}
