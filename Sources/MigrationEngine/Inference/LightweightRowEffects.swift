import SQLiteStore

/// What an inferred step's statements do to the rows it keeps, read from the same rules that
/// write them: whether rows are copied, deleted, renumbered or rewritten. The step's checks
/// (which tables to count again) and the space check (how much journal to reserve) ask here.
extension LightweightSQL {
    /// Whether the step keeps every source row under its entity number: no entity is dropped or
    /// renumbered, so no statement deletes a row or rewrites `Z_ENT`, and row counts cannot change.
    func preservesRows() -> Bool {
        let numbers = columns.entityNumbers
        return numbers.count == source.numbering.entries.count && numbers.allSatisfy { $0.key == $0.value }
    }

    /// Whether altering `origin` into `table` deletes rows: those of the entities it held that no
    /// destination entity of the table takes.
    func deletesRows(from origin: StoreLayout.Table, into table: StoreLayout.Table) -> Bool {
        let stored = source.numbering.numbers(inHierarchyOf: source.numbering.number(of: origin.rootEntity) ?? 0)
        return !Set(sourceEntityNumbers(for: table)).isSuperset(of: stored)
    }

    /// The destination tables whose rows no statement of the step adds, deletes or renumbers:
    /// altered in place, deleting no entity's rows, while no entity's number changes. `ALTER
    /// TABLE` and an `UPDATE` that leaves `Z_ENT` alone keep every row under its number (SQLite's
    /// semantics, not a prediction of values), and the step first drops the triggers on the
    /// model's tables, so nothing else writes them. Their rows counted before the step are
    /// exactly their rows after it; the step counts only the other tables again.
    func tablesKeepingRows(methods: [String: TableMethod]) -> Set<String> {
        guard columns.remap("Z_ENT") == "Z_ENT" else { return [] }
        return Set(destination.tables.filter { table in
            guard methods[table.name] == .altered, let origin = originTable(of: table) else { return false }
            return !deletesRows(from: origin, into: table)
        }.map(\.name))
    }

    /// Whether a statement rewrites rows of a table it alters (an `UPDATE` or a `DELETE`, as
    /// ``alter(_:into:)`` writes them), so the journal may hold up to the whole table: what the
    /// space check reserves for.
    func rewritesRows(methods: [String: TableMethod]) -> Bool {
        !preservesRows() || destination.tables.contains { table in
            guard methods[table.name] == .altered, let origin = originTable(of: table) else { return false }
            return alter(origin, into: table).contains { $0.sql.hasPrefix("UPDATE ") || $0.sql.hasPrefix("DELETE ") }
        }
    }

    /// Whether any table (join tables included) is rebuilt rather than altered.
    func rebuildsTables() -> Bool { tableMethods().values.contains(.rebuilt) }

    /// Whether an entity table is rebuilt from its source rows (join tables hold links, not
    /// objects): then the step counts the objects before and after, as when rows could change.
    func copiesObjects(methods: [String: TableMethod]) -> Bool {
        destination.tables.contains { methods[$0.name] == .rebuilt && originTable(of: $0) != nil }
    }
}
