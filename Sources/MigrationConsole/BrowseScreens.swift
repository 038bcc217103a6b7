/// The screens for looking around before migrating: versions, model, mappings, plan.
enum BrowseScreens {
    static func versions(_ state: ConsoleState, _ grid: inout Grid, _ body: Screens.Body) {
        let g = state.glyphs
        let listWidth = min(34, body.width / 3)
        grid.put("Versions of \(state.bundleName)", x: body.x, y: body.y, style: .bold, limit: listWidth - 1)
        let selected = state.selection[ConsoleState.Screen.versions.rawValue]
        let window = ListWindow(selected: selected, count: state.versions.count, height: body.height - 3)
        position(window, selected, &grid, x: body.x, y: body.y + 1, width: listWidth - 1)
        for (row, index) in window.rows.enumerated() {
            let version = state.versions[index]
            let marks = "\(version.isCurrent ? g.current : " ")\(version.isStore ? g.store : " ")"
            let line = "\(index == selected ? g.pointer : " ") \(marks) \(version.name)"
            grid.put(line, x: body.x, y: body.y + 2 + row, style: index == selected ? .reverse : .normal, limit: listWidth - 1)
        }
        grid.put("\(g.current) current   \(g.store) the store", x: body.x, y: body.y + body.height - 1, style: .dim)
        guard let version = state.selectedVersion else { return }
        let x = body.x + listWidth + 1
        for row in 0..<body.height { grid.put(String(g.vertical), x: x - 1, y: body.y + row, style: .dim) }
        var status = [String]()
        if version.isCurrent { status.append("the current version") }
        if version.isStore { status.append("the store is here") }
        grid.put("\(version.name)" + (status.isEmpty ? "" : "  (\(status.joined(separator: ", ")))"), x: x + 1, y: body.y, style: .bold)
        grid.put(count(version.entities.count, "entity", "entities"), x: x + 1, y: body.y + 1, style: .dim)
        let room = body.height - 3
        for (index, entity) in version.entities.enumerated() where index < room {
            if index == room - 1, version.entities.count > room {
                grid.put("\(g.ellipsis) \(version.entities.count - index) more: Enter shows them all on the Model screen", x: x + 1, y: body.y + 3 + index, style: .dim,
                         limit: body.width - listWidth - 2)
                break
            }
            let name = entity.name + (entity.parent.map { " : \($0)" } ?? "")
            let width = max(24, min(36, version.entities.map { $0.name.count + ($0.parent.map { $0.count + 3 } ?? 0) }.max() ?? 0))
            let line = fitted(name, width, g).padding(toLength: width, withPad: " ", startingAt: 0) + " "
                + count(entity.properties.count, "property", "properties").padding(toLength: 14, withPad: " ", startingAt: 0) + " \(entity.hash.prefix(12))\(g.ellipsis)"
            grid.put(fitted(line, body.width - listWidth - 2, g), x: x + 1, y: body.y + 3 + index, limit: body.width - listWidth - 2)
        }
    }

    static func model(_ state: ConsoleState, _ grid: inout Grid, _ body: Screens.Body) {
        guard let version = state.selectedVersion else { return }
        let g = state.glyphs
        grid.put("Model \(version.name)", x: body.x, y: body.y, style: .bold)
        let selected = state.selection[ConsoleState.Screen.model.rawValue]
        let changesHeight = min(max(version.changes.count, 1) + 1, body.height / 3)
        let listHeight = body.height - changesHeight - 2
        let listWidth = min(28, body.width / 3)
        let window = ListWindow(selected: selected, count: version.entities.count, height: listHeight)
        position(window, selected, &grid, x: body.x, y: body.y + 1, width: listWidth - 1)
        for (row, index) in window.rows.enumerated() {
            grid.put("\(index == selected ? g.pointer : " ") \(fitted(version.entities[index].name, listWidth - 3, g))", x: body.x, y: body.y + 2 + row,
                     style: index == selected ? .reverse : .normal, limit: listWidth - 1)
        }
        if version.entities.indices.contains(selected) {
            let entity = version.entities[selected]
            let x = body.x + listWidth + 1
            for row in 0..<(listHeight + 1) { grid.put(String(g.vertical), x: x - 1, y: body.y + 1 + row, style: .dim) }
            grid.put(entity.name + (entity.parent.map { " : \($0)" } ?? "") + "  " + count(entity.properties.count, "property", "properties"),
                     x: x + 1, y: body.y + 1, style: .bold, limit: body.width - listWidth - 2)
            let room = listHeight - 1
            for (index, property) in entity.properties.enumerated() where index < room {
                if index == room - 1, entity.properties.count > room {
                    grid.put("\(g.ellipsis) \(entity.properties.count - index) more", x: x + 1, y: body.y + 3 + index, style: .dim)
                    break
                }
                grid.put(fitted(property, body.width - listWidth - 2, g), x: x + 1, y: body.y + 3 + index, limit: body.width - listWidth - 2)
            }
        }
        let y = body.y + body.height - changesHeight
        let previous = state.versions.firstIndex(of: version).flatMap { $0 > 0 ? state.versions[$0 - 1].name : nil }
        grid.put(previous.map { "Changes from \($0):" } ?? "The first version.", x: body.x, y: y, style: .bold)
        for (index, change) in version.changes.enumerated() where index < changesHeight - 1 {
            if index == changesHeight - 2, version.changes.count > changesHeight - 1 {
                grid.put("  \(g.ellipsis) \(version.changes.count - index) more (chrysalis model shows them all)", x: body.x, y: y + 1 + index, style: .dim, limit: body.width)
                break
            }
            grid.put("  " + fitted(change, body.width - 2, g), x: body.x, y: y + 1 + index, style: change.contains("needs") ? .bad : .normal, limit: body.width)
        }
    }

    /// `12/90` at the right end of a list's header line, when the list does not fit.
    private static func position(_ window: ListWindow, _ selected: Int, _ grid: inout Grid, x: Int, y: Int, width: Int) {
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

    static func mappings(_ state: ConsoleState, _ grid: inout Grid, _ body: Screens.Body) {
        let g = state.glyphs
        let mappings = state.allMappings
        guard !mappings.isEmpty else {
            grid.put(state.steps.isEmpty ? "Nothing to migrate." : "The plan's steps are lightweight: no entity mappings to run.", x: body.x, y: body.y)
            return
        }
        grid.put("Entity mappings in execution order", x: body.x, y: body.y, style: .bold)
        let listWidth = min(46, body.width / 2)
        let selected = state.selection[ConsoleState.Screen.mappings.rawValue]
        // The list's lines: each pass's name, then its mappings; the window follows the selection.
        var lines: [(text: String, mapping: Int?)] = []
        var pass = ""
        for (index, mapping) in mappings.enumerated() {
            if mapping.pass != pass {
                pass = mapping.pass
                lines.append((pass, nil))
            }
            lines.append(("\(index + 1). \(mapping.name) [\(mapping.kind)]", index))
        }
        let selectedLine = lines.firstIndex { $0.mapping == selected } ?? 0
        let window = ListWindow(selected: selectedLine, count: lines.count, height: body.height - 2)
        if let position = ListWindow(selected: selected, count: mappings.count, height: window.height).position(selected: selected), lines.count > window.height {
            grid.put(position, x: body.x + listWidth - 1 - position.count, y: body.y + 1, style: .dim)
        }
        for (row, index) in window.rows.enumerated() {
            let line = lines[index]
            guard let mapping = line.mapping else {
                grid.put(fitted(line.text, listWidth - 1, g), x: body.x, y: body.y + 2 + row, style: .dim, limit: listWidth - 1)
                continue
            }
            grid.put("\(mapping == selected ? g.pointer : " ") " + fitted(line.text, listWidth - 3, g), x: body.x, y: body.y + 2 + row,
                     style: mapping == selected ? .reverse : .normal, limit: listWidth - 1)
        }
        guard mappings.indices.contains(selected) else { return }
        let mapping = mappings[selected]
        let x = body.x + listWidth + 1
        for row in 0..<body.height { grid.put(String(g.vertical), x: x - 1, y: body.y + row, style: .dim) }
        grid.put(mapping.name, x: x + 1, y: body.y, style: .bold)
        grid.put("\(mapping.source ?? g.none) \(g.arrow) \(mapping.destination ?? g.none)  [\(mapping.kind)]", x: x + 1, y: body.y + 1)
        grid.put("policy: \(mapping.policy ?? "Core Data's default")", x: x + 1, y: body.y + 2, style: .dim)
        // Long expressions (FUNCTION(…)) wrap onto the following lines.
        let width = body.width - listWidth - 2
        var line = body.y + 4
        for property in mapping.properties {
            var text = "\(property.name) = \(property.expression)"
            var indent = 0
            while !text.isEmpty, line < body.y + body.height {
                let piece = String(text.prefix(width - indent))
                grid.put(piece, x: x + 1 + indent, y: line, style: indent == 0 ? .normal : .dim, limit: width - indent)
                text = String(text.dropFirst(piece.count))
                indent = 4
                line += 1
            }
        }
    }

    static func plan(_ state: ConsoleState, _ grid: inout Grid, _ body: Screens.Body) {
        guard !state.steps.isEmpty else {
            grid.put("The store is at \(state.storeVersion), compatible with \(state.targetVersion): nothing to do.", x: body.x, y: body.y)
            return
        }
        let g = state.glyphs
        grid.put("Plan: \(state.storeVersion) \(g.arrow) \(state.targetVersion), \(state.steps.count) step\(state.steps.count == 1 ? "" : "s")", x: body.x, y: body.y, style: .bold)
        let lines = state.planLines
        let selected = state.selection[ConsoleState.Screen.plan.rawValue]
        let window = ListWindow(selected: selected, count: lines.count, height: body.height - 2)
        position(window, selected, &grid, x: body.x, y: body.y, width: body.width)
        for (row, index) in window.rows.enumerated() {
            let line = lines[index]
            let style: CellStyle = index == selected ? .reverse : line.isHeading ? .bold : line.isDrop ? .bad : .normal
            grid.put("\(index == selected ? g.pointer : " ") " + fitted(line.text, body.width - 2, g), x: body.x, y: body.y + 2 + row, style: style, limit: body.width)
        }
    }
}
