/// The screens for looking around before migrating: versions, model, mappings, plan.
enum BrowseScreens {
    static func versions(_ state: ConsoleState, _ grid: inout Grid, _ body: Screens.Body) {
        let g = state.glyphs
        let listWidth = min(34, body.width / 3)
        grid.put("Versions of \(state.bundleName)", x: body.x, y: body.y, style: .bold)
        let selected = state.selection[ConsoleState.Screen.versions.rawValue]
        for (index, version) in state.versions.enumerated() where index < body.height - 2 {
            let marks = "\(version.isCurrent ? g.current : " ")\(version.isStore ? g.store : " ")"
            let line = "\(index == selected ? g.pointer : " ") \(marks) \(version.name)"
            grid.put(line, x: body.x, y: body.y + 2 + index, style: index == selected ? .reverse : .normal, limit: listWidth - 1)
        }
        grid.put("\(g.current) current   \(g.store) the store", x: body.x, y: body.y + body.height - 1, style: .dim)
        guard let version = state.selectedVersion else { return }
        let x = body.x + listWidth + 1
        for row in 0..<body.height { grid.put(String(g.vertical), x: x - 1, y: body.y + row, style: .dim) }
        var status = [String]()
        if version.isCurrent { status.append("the current version") }
        if version.isStore { status.append("the store is here") }
        grid.put("\(version.name)" + (status.isEmpty ? "" : "  (\(status.joined(separator: ", ")))"), x: x + 1, y: body.y, style: .bold)
        grid.put("\(version.entities.count) entities", x: x + 1, y: body.y + 1, style: .dim)
        for (index, entity) in version.entities.enumerated() where index < body.height - 3 {
            let name = entity.name + (entity.parent.map { " : \($0)" } ?? "")
            grid.put(name.padding(toLength: 24, withPad: " ", startingAt: 0) + " \(entity.properties.count) properties  \(entity.hash.prefix(12))\(g.ellipsis)",
                     x: x + 1, y: body.y + 3 + index, limit: body.width - listWidth - 2)
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
        for (index, entity) in version.entities.enumerated() where index < listHeight {
            grid.put("\(index == selected ? g.pointer : " ") \(entity.name)", x: body.x, y: body.y + 2 + index,
                     style: index == selected ? .reverse : .normal, limit: listWidth - 1)
        }
        if version.entities.indices.contains(selected) {
            let entity = version.entities[selected]
            let x = body.x + listWidth + 1
            for row in 0..<(listHeight + 1) { grid.put(String(g.vertical), x: x - 1, y: body.y + 1 + row, style: .dim) }
            grid.put(entity.name + (entity.parent.map { " : \($0)" } ?? ""), x: x + 1, y: body.y + 1, style: .bold)
            for (index, property) in entity.properties.enumerated() where index < listHeight - 1 {
                grid.put(property, x: x + 1, y: body.y + 3 + index, limit: body.width - listWidth - 2)
            }
        }
        let y = body.y + body.height - changesHeight
        let previous = state.versions.firstIndex(of: version).flatMap { $0 > 0 ? state.versions[$0 - 1].name : nil }
        grid.put(previous.map { "Changes from \($0):" } ?? "The first version.", x: body.x, y: y, style: .bold)
        for (index, change) in version.changes.enumerated() where index < changesHeight - 1 {
            grid.put("  \(change)", x: body.x, y: y + 1 + index, style: change.contains("needs") ? .bad : .normal, limit: body.width)
        }
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
        var pass = ""
        var y = body.y + 2
        for (index, mapping) in mappings.enumerated() where y < body.y + body.height {
            if mapping.pass != pass {
                pass = mapping.pass
                grid.put(pass, x: body.x, y: y, style: .dim, limit: listWidth - 1)
                y += 1
            }
            let line = "\(index == selected ? g.pointer : " ") \(index + 1). \(mapping.name) [\(mapping.kind)]"
            grid.put(line, x: body.x, y: y, style: index == selected ? .reverse : .normal, limit: listWidth - 1)
            y += 1
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
        let selected = state.selection[ConsoleState.Screen.plan.rawValue]
        var y = body.y + 2
        for (index, step) in state.steps.enumerated() where y < body.y + body.height {
            grid.put("\(index == selected ? g.pointer : " ") \(index + 1). \(step.from) \(g.arrow) \(step.to)  [\(step.kind)]", x: body.x, y: y,
                     style: index == selected ? .reverse : .bold, limit: body.width)
            y += 1
            if !step.mappings.isEmpty, y < body.y + body.height {
                grid.put("     mappings: \(step.mappings.map(\.pass).reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }.joined(separator: " then "))", x: body.x, y: y, style: .dim, limit: body.width)
                y += 1
            }
            for change in step.changes where y < body.y + body.height && !step.findings.contains(where: { $0.contains(change) }) {
                grid.put("     \(change)", x: body.x, y: y, limit: body.width)
                y += 1
            }
            for finding in step.findings where y < body.y + body.height {
                grid.put("     \(finding)", x: body.x, y: y, style: finding.hasPrefix("data dropped") ? .bad : .normal, limit: body.width)
                y += 1
            }
        }
    }
}
