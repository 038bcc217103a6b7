/// `/`, `n` and `N`: typing what to find (or, with `f`, what to filter by) and finding it in
/// whatever has the keys.
extension ConsoleState {
    /// A key while `/` is asking what to find: letters build the text, Enter finds the next
    /// match after where the view is (wrapping round), ignoring case, and keeps the text for
    /// `n` and `N`; Esc gives up.
    mutating func typeSearch(_ key: Key) {
        guard let text = find.prompt else { return }
        switch key {
        case .escape: find.prompt = nil
        case .backspace: find.prompt = String(text.dropLast())
        case .character(let character): find.prompt = text + String(character)
        case .enter:
            find.prompt = nil
            if find.isFilter, screen == .model {
                find.modelFilter = text.isEmpty ? nil : text
                selection[Screen.model.rawValue] = 0
                pane.top = 0
                if modelEntities.isEmpty { find.missed = text; find.modelFilter = nil }
                return
            }
            if find.isFilter {
                find.planFilter = text.isEmpty ? nil : text
                selection[Screen.plan.rawValue] = 0
                if planLines.isEmpty { find.missed = text; find.planFilter = nil }
                return
            }
            guard !text.isEmpty else { return }
            find.last = text
            find(text, forward: true)
        default: break
        }
    }

    /// Moves to the next (or previous) line holding `text`, wherever the keys are: in a step's
    /// SQL, in a focused pane, or in the screen's list.
    mutating func find(_ text: String, forward: Bool) {
        let lines: [String], start: Int
        if screen == .plan, let view = overlays.sql {
            lines = SQLScreen.lines(self, step: view.step).map(\.text)
            start = view.match ?? view.top
        } else if pane.focused, let shown = Panes.pane(self) {
            lines = shown.lines.map(\.text)
            start = pane.top
        } else {
            lines = rowNames
            start = selection[screen.rawValue]
        }
        let after =
            forward
            ? Array(lines.indices.dropFirst(start + 1)) + Array(lines.indices.prefix(start + 1))
            : Array(lines.indices.prefix(start).reversed()) + Array(lines.indices.dropFirst(start).reversed())
        let matches = lines.indices.filter { lines[$0].localizedCaseInsensitiveContains(text) }
        guard let found = after.first(where: matches.contains) else {
            find.missed = text
            return
        }
        find.missed = nil
        // Where the match is among all of them, and that the search went round, as vim says it.
        let wrapped = forward ? found <= start : found >= start
        find.note =
            "\"\(text)\": match \((matches.firstIndex(of: found) ?? 0) + 1) of \(matches.count)"
            + (wrapped
                ? (forward ? ", search hit BOTTOM, continuing at TOP" : ", search hit TOP, continuing at BOTTOM") : "")
        if screen == .plan, let view = overlays.sql {
            overlays.sql = SQLView(
                step: view.step, top: min(found, SQLScreen.lastTop(self, step: view.step)), match: found)
        } else if pane.focused {
            pane.top = min(found, Panes.lastTop(self))
        } else {
            selection[screen.rawValue] = found
            pane.top = 0
        }
    }

    /// What `/` searches on the current screen, one per selectable row.
    var rowNames: [String] {
        switch screen {
        // A version is found by its name and by what it changed (`/PersonalInvitation` finds
        // the versions that add or drop it).
        case .versions: return versions.map { ([$0.name] + $0.changes).joined(separator: "\n") }
        case .model: return modelEntities.map(\.name)
        // A mapping is found by its name, its entities, and its properties' names and expressions.
        case .mappings:
            return allMappings.map {
                ([$0.name, $0.source ?? "", $0.destination ?? ""]
                    + $0.properties.map { "\($0.name) = \($0.expression)" }).joined(separator: "\n")
            }
        case .plan: return planLines.map(\.text)
        case .migrate: return run.results.map { "\($0.from) \($0.to)" }
        }
    }
}
