import Foundation

/// The migrate screen after a migration: the plan done, every step's result one key away, the
/// rows of the whole plan reconciled, and where the original is kept; or why it stopped and
/// where the store stands.
enum ResultScreen {
    /// Where the original is kept, in `width` columns: a path too long for the row is cut at its
    /// start, since its file name is what to find.
    static func backupLine(_ backup: String, width: Int, _ g: Glyphs) -> String {
        let lead = "The original is kept as "
        let room = width - DisplayWidth.of(lead)
        return lead
            + (DisplayWidth.of(backup) <= room
                ? backup : g.ellipsis + String(DisplayWidth.suffix(backup, columns: max(room - 1, 1))))
    }

    static func finished(_ state: ConsoleState, _ grid: inout Grid, _ body: Screens.Body) {
        guard let outcome = state.run.outcome else { return }
        let g = state.glyphs
        let steps = state.run.results.count == 1 ? "1 step" : "\(state.run.results.count) steps"
        let paused = outcome.pausedSeconds >= 0.5 ? " (paused \(Int(outcome.pausedSeconds.rounded())) s apart)" : ""
        grid.put(
            """
            \(g.check) Migrated \(outcome.from) \(g.arrow) \(outcome.to) in \
            \(String(format: "%.1f", outcome.seconds)) s\(paused), \(steps)
            """,
            x: body.x,
            y: body.y,
            style: .good, limit: body.width)
        grid.put(
            "Each step was verified before the next began; the store is at \(outcome.to).", x: body.x, y: body.y + 1,
            limit: body.width)
        // What the plan dropped, said again now that it is gone, each entity with its rows.
        var top = body.y + 2
        let summary = dropSummary(state.run.results.flatMap(\.dropped))
        if let summary {
            let lines = MigrateScreen.wrap(summary, width: body.width)
            for (index, line) in lines.prefix(2).enumerated() {
                let cut = index == 1 && lines.count > 2
                grid.put(
                    cut ? BrowseScreens.fitted(line, body.width - 2, g) + " \(g.ellipsis)" : line, x: body.x, y: top,
                    style: .bad, limit: body.width)
                top += 1
            }
        }
        if let backup = outcome.backup {
            grid.put(backupLine(backup, width: body.width, g), x: body.x, y: body.y + body.height - 1, style: .dim)
        }
        let half = body.width / 2
        let room = body.height - (top - body.y) - 3
        // The steps take at most half the room (an 80-step plan scrolls with its selection);
        // the rows table, the rest above the backup line.
        let listHeight = min(state.run.results.count + 1, max(room / 2, 3))
        let listed = stepList(state, &grid, Screens.Body(x: body.x, y: top + 1, width: half - 1, height: listHeight))
        let droppedEntities = Set(state.run.results.flatMap(\.dropped).filter(\.isEntity).map(\.what))
        rowTable(
            outcome, dropped: droppedEntities, &grid,
            Screens.Body(x: body.x, y: top + 2 + listed, width: half - 1, height: room - listed), glyphs: g)
        let selected = state.selection[ConsoleState.Screen.migrate.rawValue]
        guard state.run.results.indices.contains(selected) else { return }
        guard let (pane, lines) = Panes.pane(state) else { return }
        for row in 0..<pane.height { grid.put(String(g.vertical), x: pane.x - 2, y: pane.y + row, style: .dim) }
        Panes.draw(lines, top: state.pane.top, focused: state.pane.focused, pane, &grid, glyphs: g)
    }

    /// Rows the drop summary takes at the top (at most two).
    private static func summaryRows(_ state: ConsoleState, _ body: Screens.Body) -> Int {
        dropSummary(state.run.results.flatMap(\.dropped)).map {
            min(MigrateScreen.wrap($0, width: body.width).count, 2)
        }
            ?? 0
    }

    /// Where the selected step's pane is: the right half, below the summary.
    static func paneArea(_ state: ConsoleState, _ body: Screens.Body) -> Screens.Body {
        let top = body.y + 2 + summaryRows(state, body), half = body.width / 2
        return Screens.Body(
            x: body.x + half + 2, y: top + 1, width: body.width - half - 2, height: body.height - (top - body.y) - 3)
    }

    /// The steps done, with their time, the selected one lit; returns the rows used.
    private static func stepList(_ state: ConsoleState, _ grid: inout Grid, _ area: Screens.Body) -> Int {
        let g = state.glyphs
        let selected = state.selection[ConsoleState.Screen.migrate.rawValue]
        let window = ListWindow(selected: selected, count: state.run.results.count, height: area.height - 1)
        let heading = "Steps" + (state.run.results.count > 1 ? " (↑↓ shows each)" : "")
        grid.put(heading, x: area.x, y: area.y, style: .bold, limit: area.width)
        if let position = window.position(selected: selected) {
            grid.put(position, x: area.x + area.width - position.count, y: area.y, style: .dim)
        }
        for (row, index) in window.rows.enumerated() {
            let result = state.run.results[index]
            let time = String(format: "%.1f s", result.seconds)
            let name = BrowseScreens.fitted(
                "\(index == selected ? g.pointer : g.check) \(result.index). \(result.versions(arrow: g.arrow))",
                area.width - time.count - 1, g)
            let text =
                name.padding(toLength: max(area.width - time.count - 1, name.count), withPad: " ", startingAt: 0) + " "
                + time
            grid.put(
                text, x: area.x, y: area.y + 1 + row, style: index == selected ? .reverse : .normal, limit: area.width)
        }
        return window.rows.count + 1
    }

    /// `Dropped, as planned: PersonalInvitation 120000 rows, FeatureFlag 3 rows; 58 properties (each step's pane lists them)`,
    /// or nil when nothing was dropped.
    static func dropSummary(_ drops: [StepResult.Drop]) -> String? {
        guard !drops.isEmpty else { return nil }
        let entities = drops.filter(\.isEntity).map { drop in
            drop.rows.map { "\(drop.what) \($0) row\($0 == 1 ? "" : "s")" } ?? drop.what
        }
        let others = drops.count - entities.count
        var parts: [String] = []
        if !entities.isEmpty { parts.append(entities.joined(separator: ", ")) }
        if others > 0 {
            parts.append(
                others == 1
                    ? (drops.first { !$0.isEntity }?.sentence ?? "1 property")
                    : "\(others) properties or links (each step's pane lists them)")
        }
        return "Dropped, as planned: " + parts.joined(separator: "; ")
    }

    /// Rows per entity, before the plan and after it; an entity the plan dropped says so.
    private static func rowTable(
        _ outcome: ConsoleState.Outcome, dropped: Set<String>, _ grid: inout Grid, _ area: Screens.Body, glyphs: Glyphs
    ) {
        guard !outcome.rows.isEmpty, area.height > 1 else { return }
        // Columns sized to their content, the names cut with … only when the area is too narrow.
        let numbers = outcome.rows.flatMap { [$0.before, $0.after] }.map { $0.map(String.init) ?? "—" }
        let numberWidth = max(numbers.map(\.count).max() ?? 0, 6) + 2
        let nameWidth = max(6, min(outcome.rows.map(\.entity.count).max() ?? 0, area.width - 2 * numberWidth)) + 2
        func columns(_ a: String, _ b: String, _ c: String) -> String {
            BrowseScreens.fitted(a, nameWidth - 2, glyphs).padding(toLength: nameWidth, withPad: " ", startingAt: 0)
                + b.padding(toLength: numberWidth, withPad: " ", startingAt: 0) + c
        }
        grid.put(columns("Entity", "before", "after"), x: area.x, y: area.y, style: .bold, limit: area.width)
        for (index, row) in outcome.rows.enumerated() where index + 1 < area.height {
            if index + 2 == area.height, outcome.rows.count > index + 1 {
                grid.put(
                    "\(glyphs.ellipsis) \(outcome.rows.count - index) more entities: r lists them all", x: area.x,
                    y: area.y + 1 + index, style: .dim,
                    limit: area.width)
                break
            }
            let isDropped = dropped.contains(row.entity) && row.after == nil
            grid.put(
                columns(
                    row.entity, row.before.map(String.init) ?? "—",
                    isDropped ? "dropped" : row.after.map(String.init) ?? "—"), x: area.x,
                y: area.y + 1 + index,
                style: isDropped ? .bad : .normal, limit: area.width)
        }
    }

    /// Every entity's rows before the plan and after it, for the pane (`r`): none left out.
    static func rowLines(_ outcome: ConsoleState.Outcome, _ state: ConsoleState) -> [PaneLine] {
        let dropped = Set(state.run.results.flatMap(\.dropped).filter(\.isEntity).map(\.what))
        let nameWidth = max(6, outcome.rows.map { DisplayWidth.of($0.entity) }.max() ?? 0) + 2
        func columns(_ a: String, _ b: String, _ c: String) -> String {
            a + String(repeating: " ", count: max(nameWidth - DisplayWidth.of(a), 1))
                + b.padding(toLength: 10, withPad: " ", startingAt: 0) + c
        }
        return [
            PaneLine(text: "Rows of every entity, before the plan and after it (r: the step's result)", style: .bold),
            PaneLine(text: columns("Entity", "before", "after"), style: .dim),
        ]
            + outcome.rows.map { row in
                let isDropped = dropped.contains(row.entity) && row.after == nil
                return PaneLine(
                    text: columns(
                        row.entity, row.before.map(String.init) ?? "—",
                        isDropped ? "dropped" : row.after.map(String.init) ?? "—"),
                    style: isDropped ? .bad : .normal)
            }
    }

    /// Why the migration stopped, and (in the engine's own words) where the store stands.
    static func stopped(_ message: String, _ state: ConsoleState, _ grid: inout Grid, _ body: Screens.Body) {
        grid.put("The migration stopped.", x: body.x, y: body.y, style: .bad)
        for (index, line) in MigrateScreen.wrap(message, width: body.width).enumerated() where index < body.height - 3 {
            grid.put(line, x: body.x, y: body.y + 2 + index)
        }
        if !state.run.results.isEmpty {
            grid.put(
                """
                \(state.run.results.count) of \(state.steps.count) steps had finished; the message says where the \
                store stands.
                """,
                x: body.x, y: body.y + body.height - 1, style: .dim, limit: body.width)
        }
    }
}
