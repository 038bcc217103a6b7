import Foundation

/// The migrate screen after a migration: the plan done, every step's result one key away, the
/// rows of the whole plan reconciled, and where the original is kept; or why it stopped and
/// where the store stands.
enum ResultScreen {
    static func finished(_ state: ConsoleState, _ grid: inout Grid, _ body: Screens.Body) {
        guard let outcome = state.outcome else { return }
        let g = state.glyphs
        let steps = state.results.count == 1 ? "1 step" : "\(state.results.count) steps"
        grid.put("\(g.check) Migrated \(outcome.from) \(g.arrow) \(outcome.to) in \(String(format: "%.1f", outcome.seconds)) s, \(steps)", x: body.x, y: body.y,
                 style: .good, limit: body.width)
        grid.put("Each step was verified before the next began; the store is at \(outcome.to).", x: body.x, y: body.y + 1, limit: body.width)
        if let backup = outcome.backup {
            grid.put("The original is kept as \(backup)", x: body.x, y: body.y + body.height - 1, style: .dim, limit: body.width)
        }
        let half = body.width / 2
        let listed = stepList(state, &grid, Screens.Body(x: body.x, y: body.y + 3, width: half - 1, height: state.results.count + 1))
        rowTable(outcome, &grid, Screens.Body(x: body.x, y: body.y + 4 + listed, width: half - 1, height: body.height - 6 - listed))
        let selected = state.selection[ConsoleState.Screen.migrate.rawValue]
        guard state.results.indices.contains(selected) else { return }
        let pane = Screens.Body(x: body.x + half + 2, y: body.y + 3, width: body.width - half - 2, height: body.height - 5)
        for row in 0..<pane.height { grid.put(String(g.vertical), x: pane.x - 2, y: pane.y + row, style: .dim) }
        StepPane.render(state.results[selected], state, &grid, pane, heading: "Step \(state.results[selected].index)")
    }

    /// The steps done, with their time, the selected one lit; returns the rows used.
    private static func stepList(_ state: ConsoleState, _ grid: inout Grid, _ area: Screens.Body) -> Int {
        let g = state.glyphs
        grid.put("Steps" + (state.results.count > 1 ? " (↑↓ shows each)" : ""), x: area.x, y: area.y, style: .bold, limit: area.width)
        let selected = state.selection[ConsoleState.Screen.migrate.rawValue]
        for (index, result) in state.results.enumerated() {
            let time = String(format: "%.1f s", result.seconds)
            let name = "\(index == selected ? g.pointer : g.check) \(result.index). \(result.from) \(g.arrow) \(result.to)"
            let text = name.padding(toLength: max(area.width - time.count - 1, name.count), withPad: " ", startingAt: 0) + " " + time
            grid.put(text, x: area.x, y: area.y + 1 + index, style: index == selected ? .reverse : .normal, limit: area.width)
        }
        return state.results.count + 1
    }

    /// Rows per entity, before the plan and after it.
    private static func rowTable(_ outcome: ConsoleState.Outcome, _ grid: inout Grid, _ area: Screens.Body) {
        guard !outcome.rows.isEmpty, area.height > 1 else { return }
        func columns(_ a: String, _ b: String, _ c: String) -> String {
            a.padding(toLength: 16, withPad: " ", startingAt: 0) + b.padding(toLength: 10, withPad: " ", startingAt: 0) + c
        }
        grid.put(columns("Entity", "before", "after"), x: area.x, y: area.y, style: .bold, limit: area.width)
        for (index, row) in outcome.rows.enumerated() where index + 1 < area.height {
            grid.put(columns(row.entity, row.before.map(String.init) ?? "—", row.after.map(String.init) ?? "—"), x: area.x, y: area.y + 1 + index, limit: area.width)
        }
    }

    /// Why the migration stopped, and (in the engine's own words) where the store stands.
    static func stopped(_ message: String, _ state: ConsoleState, _ grid: inout Grid, _ body: Screens.Body) {
        grid.put("The migration stopped.", x: body.x, y: body.y, style: .bad)
        for (index, line) in MigrateScreen.wrap(message, width: body.width).enumerated() where index < body.height - 3 {
            grid.put(line, x: body.x, y: body.y + 2 + index)
        }
        if !state.results.isEmpty {
            grid.put("\(state.results.count) of \(state.steps.count) steps had finished; the message says where the store stands.",
                     x: body.x, y: body.y + body.height - 1, style: .dim, limit: body.width)
        }
    }
}
