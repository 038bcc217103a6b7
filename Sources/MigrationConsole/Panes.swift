/// The pane beside a screen's list: the selected version's entities and changes, an entity's
/// properties, a mapping's expressions, a finished step's result. Each is a list of lines that
/// can take the keys (`l` or Enter) and scroll (j/k, PgUp/PgDn, g/G, Home/End; Esc or `h` gives
/// the keys back), so nothing a pane holds is out of reach: what does not fit is counted on the
/// last row with the key that reads on.
struct PaneLine: Equatable {
    var text: String
    var style: CellStyle = .normal
    var indent = 0
}

enum Panes {
    /// The current screen's pane, where it is drawn and what it holds; nil where the screen has none.
    static func pane(_ state: ConsoleState) -> (area: Screens.Body, lines: [PaneLine])? {
        let body = Screens.body(state)
        switch state.screen {
        case .versions:
            guard let version = state.selectedVersion else { return nil }
            let listWidth = BrowseScreens.versionListWidth(body, state)
            let area = Screens.Body(
                x: body.x + listWidth + 2, y: body.y, width: body.width - listWidth - 2, height: body.height)
            return (area, BrowseScreens.versionLines(version, state, width: area.width))
        case .model:
            let entities = state.modelEntities
            guard entities.indices.contains(state.selection[ConsoleState.Screen.model.rawValue]) else { return nil }
            let listWidth = BrowseScreens.modelListWidth(body)
            let area = Screens.Body(
                x: body.x + listWidth + 2, y: body.y + 1, width: body.width - listWidth - 2, height: body.height - 1)
            return (
                area, BrowseScreens.entityLines(entities[state.selection[ConsoleState.Screen.model.rawValue]], state)
            )
        case .mappings:
            let mappings = state.allMappings, selected = state.selection[ConsoleState.Screen.mappings.rawValue]
            guard mappings.indices.contains(selected) else { return nil }
            let listWidth = BrowseScreens.mappingListWidth(body)
            let area = Screens.Body(
                x: body.x + listWidth + 2, y: body.y, width: body.width - listWidth - 2, height: body.height)
            return (area, BrowseScreens.mappingLines(mappings[selected], state, width: area.width))
        case .migrate:
            let selected = state.selection[ConsoleState.Screen.migrate.rawValue]
            guard state.mode == .finished, state.run.results.indices.contains(selected) else { return nil }
            let area = ResultScreen.paneArea(state, body)
            if state.pane.showsAllRows, let outcome = state.run.outcome {
                return (area, ResultScreen.rowLines(outcome, state))
            }
            return (
                area,
                StepPane.lines(
                    state.run.results[selected], state, width: area.width,
                    heading: "Step \(state.run.results[selected].index)")
            )
        case .plan:
            return BrowseScreens.planStrip(state, body)
        }
    }

    /// Rows of content the pane shows at once: one is kept for the count of what is out of view
    /// when the lines do not fit.
    static func visibleRows(_ area: Screens.Body, lines: Int) -> Int {
        lines <= area.height ? area.height : max(area.height - 1, 1)
    }

    /// The furthest the pane scrolls: its last line on its last content row.
    static func lastTop(_ state: ConsoleState) -> Int {
        guard let (area, lines) = pane(state) else { return 0 }
        return max(0, lines.count - visibleRows(area, lines: lines.count))
    }

    /// Draws `lines` from `top` in `area`; the last row says what is out of view and how to reach
    /// it. A focused pane's separator (the column left of it) is lit.
    static func draw(
        _ lines: [PaneLine], top: Int, focused: Bool, _ area: Screens.Body, _ grid: inout Grid, glyphs g: Glyphs,
        canFocus: Bool = true, hint: String? = nil
    ) {
        guard area.height > 0 else { return }
        let rows = visibleRows(area, lines: lines.count)
        let top = max(0, min(top, lines.count - rows))
        for (offset, line) in lines.dropFirst(top).prefix(rows).enumerated() {
            grid.put(
                line.text, x: area.x + line.indent, y: area.y + offset, style: line.style,
                limit: area.width - line.indent)
        }
        if focused {
            for row in 0..<area.height { grid.put(String(g.vertical), x: area.x - 2, y: area.y + row, style: .accent) }
        }
        guard lines.count > rows else { return }
        let below = lines.count - top - rows
        let text: String
        if focused {
            text =
                "lines \(top + 1)–\(top + rows) of \(lines.count)" + (below > 0 ? "  ↓ \(below) more" : "")
                + "  j/k PgUp/PgDn g/G · Esc back"
        } else {
            let position = top > 0 ? ["lines \(top + 1)–\(top + rows) of \(lines.count)"] : []
            let more = below > 0 ? ["\(g.ellipsis) \(below) more line\(below == 1 ? "" : "s")"] : []
            text = (position + more).joined(separator: "  ") + (hint ?? (canFocus ? ": l reads on" : ""))
        }
        grid.put(g.plain(text), x: area.x, y: area.y + rows, style: focused ? .accent : .dim, limit: area.width)
    }
}
