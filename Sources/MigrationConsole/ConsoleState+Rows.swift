/// What the current screen lists: its rows, how far a page moves, the version and entities the
/// Model screen shows.
extension ConsoleState {
    /// Rows the current screen can select among.
    var rowCount: Int {
        switch screen {
        case .versions: return versions.count
        case .model: return modelEntities.count
        case .mappings: return allMappings.count
        case .plan: return planLines.count
        case .migrate: return run.results.count
        }
    }

    /// How far PgUp/PgDn move a list's selection: a window's rows, less one kept for context.
    package var pageRows: Int { max(height - 10, 1) }

    /// The Model screen's entities: every one of the selected version's, or under a filter (`f`)
    /// those whose name or properties hold its text, or that a change from the version before
    /// names and holds it (`f added`: the entities that gained something; `f renamed`, `f removed`).
    var modelEntities: [Entity] {
        guard let version = selectedVersion else { return [] }
        guard let filter = find.modelFilter, !filter.isEmpty else { return version.entities }
        let changes = version.changes.filter { $0.localizedCaseInsensitiveContains(filter) }
        return version.entities.filter { entity in
            entity.name.localizedCaseInsensitiveContains(filter)
                || entity.properties.contains { $0.localizedCaseInsensitiveContains(filter) }
                || changes.contains {
                    $0.hasPrefix(entity.name + ".") || $0.contains(" \(entity.name) ")
                        || $0.hasSuffix(" \(entity.name)") || $0.contains(" \(entity.name).")
                }
        }
    }

    /// The version the model screen shows: the one selected on the versions screen.
    var selectedVersion: Version? {
        versions.indices.contains(selection[Screen.versions.rawValue])
            ? versions[selection[Screen.versions.rawValue]] : nil
    }
}
