/// The screens for looking around before migrating: versions, model, mappings, plan.
enum BrowseScreens {
    /// The Versions list's width.
    /// The Versions list's width: a third of the screen, widened (to two fifths at most) so that
    /// the longest name leaves room for its glance (Wire's `zmessaging2.101.0` at 80 columns).
    static func versionListWidth(_ body: Screens.Body, _ state: ConsoleState) -> Int {
        let longest = state.versions.map { DisplayWidth.of($0.name) }.max() ?? 0
        return min(34, max(body.width / 3, min(longest + 12, body.width * 2 / 5)))
    }

    static func versions(_ state: ConsoleState, _ grid: inout Grid, _ body: Screens.Body) {
        let g = state.glyphs
        let listWidth = versionListWidth(body, state)
        grid.put("Versions of \(state.bundleName)", x: body.x, y: body.y, style: .bold, limit: listWidth - 1)
        let selected = state.selection[ConsoleState.Screen.versions.rawValue]
        let window = ListWindow(selected: selected, count: state.versions.count, height: body.height - 3)
        position(window, selected, &grid, x: body.x, y: body.y + 1, width: listWidth - 1)
        for (row, index) in window.rows.enumerated() {
            let version = state.versions[index]
            let marks = "\(version.isCurrent ? g.current : " ")\(version.isStore ? g.store : " ")"
            let summary = version.changeSummary.isEmpty ? "" : "  " + version.changeSummary
            let line = "\(index == selected ? g.pointer : " ") \(marks) \(version.name)"
            grid.put(
                line, x: body.x, y: body.y + 2 + row, style: index == selected ? .reverse : .normal,
                limit: listWidth - 1)
            // What the version changed, in the room the name leaves (`+2 −1 ent`), shortened
            // where it does not fit (`+2 −1`, `3p`) rather than left out.
            let used = DisplayWidth.of(line)
            if let shown = glance(summary, room: listWidth - 1 - used) {
                grid.put(
                    shown, x: body.x + used, y: body.y + 2 + row, style: index == selected ? .reverse : .dim,
                    limit: listWidth - 1 - used)
            }
        }
        grid.put("\(g.current) current   \(g.store) the store", x: body.x, y: body.y + body.height - 1, style: .dim)
        guard let (area, lines) = Panes.pane(state) else { return }
        for row in 0..<body.height { grid.put(String(g.vertical), x: area.x - 2, y: body.y + row, style: .dim) }
        Panes.draw(lines, top: state.pane.top, focused: state.pane.focused, area, &grid, glyphs: g)
    }

    /// A version's glance (`  +1 −2 ent`, `  3 prop`) in `room` columns: whole, else without
    /// its unit (`+1 −2`, `3p`), else with one space before it; nil when nothing fits.
    static func glance(_ summary: String, room: Int) -> String? {
        guard !summary.isEmpty else { return nil }
        let short = summary.trimmingCharacters(in: .whitespaces)
            .replacingOccurrences(of: " ent", with: "").replacingOccurrences(of: " prop", with: "p")
        return [summary, "  " + short, " " + short].first { DisplayWidth.of($0) <= room }
    }

    /// The Versions pane: the version, its entities, and what it changed from the one before.
    static func versionLines(_ version: ConsoleState.Version, _ state: ConsoleState, width: Int) -> [PaneLine] {
        let g = state.glyphs
        var status = [String]()
        if version.isCurrent { status.append("the current version") }
        if version.isStore { status.append("the store is here") }
        var lines = [
            PaneLine(
                text: "\(version.name)" + (status.isEmpty ? "" : "  (\(status.joined(separator: ", ")))"), style: .bold),
            PaneLine(text: count(version.entities.count, "entity", "entities"), style: .dim), PaneLine(text: ""),
        ]
        let nameWidth = max(
            24,
            min(
                36,
                version.entities.map { DisplayWidth.of($0.name) + ($0.parent.map { DisplayWidth.of($0) + 3 } ?? 0) }
                    .max() ?? 0))
        for entity in version.entities {
            let name = entity.name + (entity.parent.map { " : \($0)" } ?? "")
            let fittedName = fitted(name, nameWidth, g)
            let line =
                fittedName + String(repeating: " ", count: max(0, nameWidth - DisplayWidth.of(fittedName))) + " "
                + count(entity.properties.count, "property", "properties").padding(
                    toLength: 14, withPad: " ", startingAt: 0)
                + " \(entity.hash.prefix(12))\(g.ellipsis)"
            lines.append(PaneLine(text: line))
        }
        let previous = state.versions.firstIndex(of: version).flatMap { $0 > 0 ? state.versions[$0 - 1].name : nil }
        lines.append(PaneLine(text: ""))
        guard let previous else {
            lines.append(PaneLine(text: "The first version.", style: .bold))
            return lines
        }
        lines.append(
            PaneLine(
                text: version.changes.isEmpty ? "No change from \(previous)." : "Changes from \(previous):",
                style: .bold))
        for change in version.changes {
            for (index, text) in MigrateScreen.wrap(change, width: width - 4).enumerated() {
                lines.append(
                    PaneLine(
                        text: text, style: change.contains("needs") || change.contains("removed") ? .bad : .normal,
                        indent: index == 0 ? 2 : 4))
            }
        }
        return lines
    }

    /// The Model screen's entity list width.
    static func modelListWidth(_ body: Screens.Body) -> Int { min(28, body.width / 3) }

    static func model(_ state: ConsoleState, _ grid: inout Grid, _ body: Screens.Body) {
        guard let version = state.selectedVersion else { return }
        let g = state.glyphs
        grid.put("Model \(version.name)", x: body.x, y: body.y, style: .bold)
        let selected = state.selection[ConsoleState.Screen.model.rawValue]
        let listHeight = body.height - 2
        let listWidth = modelListWidth(body)
        let entities = state.modelEntities
        if let filter = state.find.modelFilter {
            grid.put(
                "  only \"\(filter)\": \(entities.count) of \(version.entities.count)",
                x: body.x + DisplayWidth.of("Model \(version.name)"), y: body.y,
                style: .accent,
                limit: body.width - DisplayWidth.of("Model \(version.name)"))
        }
        let window = ListWindow(selected: selected, count: entities.count, height: listHeight)
        position(window, selected, &grid, x: body.x, y: body.y + 1, width: listWidth - 1)
        for (row, index) in window.rows.enumerated() {
            grid.put(
                "\(index == selected ? g.pointer : " ") \(fitted(entities[index].name, listWidth - 3, g))", x: body.x,
                y: body.y + 2 + row,
                style: index == selected ? .reverse : .normal, limit: listWidth - 1)
        }
        guard let (area, lines) = Panes.pane(state) else { return }
        for row in 0..<area.height { grid.put(String(g.vertical), x: area.x - 2, y: area.y + row, style: .dim) }
        Panes.draw(lines, top: state.pane.top, focused: state.pane.focused, area, &grid, glyphs: g)
    }

    /// The Model pane: an entity and every property.
    static func entityLines(_ entity: ConsoleState.Entity, _ state: ConsoleState) -> [PaneLine] {
        [
            PaneLine(
                text: entity.name + (entity.parent.map { " : \($0)" } ?? "") + "  "
                    + count(entity.properties.count, "property", "properties"), style: .bold),
            PaneLine(text: ""),
        ] + entity.properties.map { PaneLine(text: $0) }
    }

    /// `12/90` at the right end of a list's header line, when the list does not fit.
    private static func position(_ window: ListWindow, _ selected: Int, _ grid: inout Grid, x: Int, y: Int, width: Int)
    {
        guard let text = window.position(selected: selected) else { return }
        grid.put(text, x: x + max(0, width - text.count), y: y, style: .dim)
    }

    /// `1 property`, `2 properties`.
    private static func count(_ number: Int, _ one: String, _ many: String) -> String {
        "\(number) \(number == 1 ? one : many)"
    }

    /// `text` in at most `width` columns, ending in `…` when it had to be cut.
    static func fitted(_ text: String, _ width: Int, _ glyphs: Glyphs) -> String {
        guard DisplayWidth.of(text) > width, width > 1 else { return text }
        return String(DisplayWidth.prefix(text, columns: width - 1)) + "…"
    }

    /// The Mappings list's width.
    static func mappingListWidth(_ body: Screens.Body) -> Int { min(46, body.width / 2) }

    /// The Mappings list's lines: each pass's name, then its mappings (with their index).
    static func mappingLines(_ state: ConsoleState) -> [(text: String, mapping: Int?)] {
        var lines: [(text: String, mapping: Int?)] = []
        var pass = ""
        for (index, mapping) in state.allMappings.enumerated() {
            if mapping.pass != pass {
                pass = mapping.pass
                lines.append((pass, nil))
            }
            lines.append(("\(index + 1). \(mapping.name) [\(mapping.kind)]", index))
        }
        return lines
    }

    /// The lines of the Mappings list in view: the window follows the selected mapping.
    static func mappingWindow(_ state: ConsoleState, lines: [(text: String, mapping: Int?)], body: Screens.Body)
        -> ListWindow
    {
        let selected = state.selection[ConsoleState.Screen.mappings.rawValue]
        let selectedLine = lines.firstIndex { $0.mapping == selected } ?? 0
        return ListWindow(selected: selectedLine, count: lines.count, height: body.height - 2)
    }

    static func mappings(_ state: ConsoleState, _ grid: inout Grid, _ body: Screens.Body) {
        let g = state.glyphs
        let mappings = state.allMappings
        guard !mappings.isEmpty else {
            grid.put(
                state.steps.isEmpty
                    ? "Nothing to migrate." : "The plan's steps are lightweight: no entity mappings to run.", x: body.x,
                y: body.y)
            return
        }
        grid.put("Entity mappings in execution order", x: body.x, y: body.y, style: .bold)
        let listWidth = mappingListWidth(body)
        let selected = state.selection[ConsoleState.Screen.mappings.rawValue]
        let lines = mappingLines(state)
        let window = mappingWindow(state, lines: lines, body: body)
        // The position counts mappings, shown whenever a line (a pass's name or a mapping) is out of view.
        if lines.count > window.height {
            let position = "\(selected + 1)/\(mappings.count)"
            grid.put(position, x: body.x + listWidth - 1 - position.count, y: body.y + 1, style: .dim)
        }
        for (row, index) in window.rows.enumerated() {
            let line = lines[index]
            guard let mapping = line.mapping else {
                grid.put(
                    fitted(line.text, listWidth - 1, g), x: body.x, y: body.y + 2 + row, style: .dim,
                    limit: listWidth - 1)
                continue
            }
            grid.put(
                "\(mapping == selected ? g.pointer : " ") " + fitted(line.text, listWidth - 3, g), x: body.x,
                y: body.y + 2 + row,
                style: mapping == selected ? .reverse : .normal, limit: listWidth - 1)
        }
        guard let (area, paneLines) = Panes.pane(state) else { return }
        for row in 0..<body.height { grid.put(String(g.vertical), x: area.x - 2, y: body.y + row, style: .dim) }
        Panes.draw(paneLines, top: state.pane.top, focused: state.pane.focused, area, &grid, glyphs: g)
    }

    /// The Mappings pane: a mapping, its policy and every property's expression, wrapped between
    /// words to the pane's width (long `FUNCTION(…)` calls go on, indented, over the next lines).
    static func mappingLines(_ mapping: ConsoleState.Mapping, _ state: ConsoleState, width: Int) -> [PaneLine] {
        let g = state.glyphs
        var lines = [
            PaneLine(text: mapping.name, style: .bold),
            PaneLine(
                text: "\(mapping.source ?? g.none) \(g.arrow) \(mapping.destination ?? g.none)  [\(mapping.kind)]"),
            PaneLine(text: "policy: \(mapping.policy ?? "Core Data's default")", style: .dim), PaneLine(text: ""),
        ]
        for property in mapping.properties {
            for (index, text) in MigrateScreen.wrap(
                "\(property.name) = \(property.expression)", width: max(width - 4, 8)
            ).enumerated() {
                lines.append(PaneLine(text: text, style: index == 0 ? .normal : .dim, indent: index == 0 ? 0 : 4))
            }
        }
        return lines
    }

    static func plan(_ state: ConsoleState, _ grid: inout Grid, _ body: Screens.Body) {
        guard !state.steps.isEmpty else {
            grid.put(
                "The store is at \(state.storeVersion), compatible with \(state.targetVersion): nothing to do.",
                x: body.x, y: body.y)
            return
        }
        let g = state.glyphs
        grid.put(
            """
            Plan: \(state.migratedFrom ?? state.storeVersion) \(g.arrow) \(state.targetVersion), \
            \(state.steps.count) step\(state.steps.count == 1 ? "" : "s")
            """
                + (state.migratedFrom == nil ? "" : ", done"), x: body.x, y: body.y, style: .bold)
        let lines = state.planLines
        let selected = state.selection[ConsoleState.Screen.plan.rawValue]
        let window = ListWindow(selected: selected, count: lines.count, height: planListHeight(state, body))
        position(window, selected, &grid, x: body.x, y: body.y, width: body.width)
        for (row, index) in window.rows.enumerated() {
            let line = lines[index]
            let style: CellStyle = index == selected ? .reverse : line.isHeading ? .bold : line.isDrop ? .bad : .normal
            grid.put(
                "\(index == selected ? g.pointer : " ") " + fitted(line.text, body.width - 2, g), x: body.x,
                y: body.y + 2 + row, style: style,
                limit: body.width)
        }
        if let strip = planStrip(state, body) {
            Panes.draw(strip.lines, top: state.pane.top, focused: state.pane.focused, strip.area, &grid, glyphs: g)
        }
    }

    /// Rows the Plan screen's list has: what the body holds below the heading, less the strip.
    static func planListHeight(_ state: ConsoleState, _ body: Screens.Body) -> Int {
        body.height - 2 - (planStrip(state, body).map { $0.area.height + 1 } ?? 0)
    }

    /// The selected plan line in full, under the list, when it is too long for its row: never
    /// only cut. It is the Plan screen's pane, so a line longer than the strip is read on with
    /// `l`, as any pane is.
    static func planStrip(_ state: ConsoleState, _ body: Screens.Body) -> (area: Screens.Body, lines: [PaneLine])? {
        let lines = state.planLines, selected = state.selection[ConsoleState.Screen.plan.rawValue]
        guard state.overlays.sql == nil, lines.indices.contains(selected),
            DisplayWidth.of(lines[selected].text) > body.width - 2
        else { return nil }
        let style: CellStyle = lines[selected].isDrop ? .bad : .accent
        let wrapped = MigrateScreen.wrap(
            lines[selected].text.trimmingCharacters(in: .whitespaces), width: body.width - 2)
        let height = min(wrapped.count, max(body.height / 3, 2))
        return (
            Screens.Body(x: body.x + 2, y: body.y + body.height - height, width: body.width - 2, height: height),
            wrapped.map { PaneLine(text: $0, style: style) }
        )
    }
}
