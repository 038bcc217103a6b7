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

    /// The destination tables whose rows no statement of the step adds or deletes: altered in
    /// place, deleting no entity's rows. `ALTER TABLE` and an `UPDATE` keep every row (SQLite's
    /// semantics, not a prediction of values), and the step first drops the triggers on the
    /// model's tables, so nothing else writes them. Their rows counted before the step are
    /// exactly their rows after it, entity by entity, under the destination's names; the step
    /// counts only the other tables again.
    ///
    /// That holds for a table whose `Z_ENT` is renumbered too, by the one `UPDATE`'s
    /// `CASE Z_ENT WHEN old THEN new … END` (``LightweightColumns/remap(_:)``): each row of an
    /// entity gets its destination's number, so each entity keeps its count. It is checked here
    /// against the inference, entity by entity, rather than taken on trust: a table any of whose
    /// entities the map would not carry to its own number is counted again. Counting a renumbered
    /// table read every row once more; an entity added whose name sorts first renumbers every
    /// table of the store (`chrysalis-bench --scenario rename-require`, whose rename renumbers
    /// both its entities).
    func tablesKeepingRows(methods: [String: TableMethod]) -> Set<String> {
        Set(
            destination.tables.filter { table in
                guard methods[table.name] == .altered, let origin = originTable(of: table) else { return false }
                return !deletesRows(from: origin, into: table) && renumbersOntoItsOwn(table)
            }.map(\.name))
    }

    /// The rebuilt tables whose copy (one `INSERT … SELECT … WHERE Z_ENT IN` the origins'
    /// numbers, ``copy(into:from:table:)``) puts each origin's rows under its own entity's number.
    /// For them the rows the copy inserted, as SQLite counts them (`changes()`), stand in for a
    /// count of the new table: when they are exactly the rows the table's origins had, each entity
    /// has its origin's rows, and the step does not read the table again
    /// (``InferredStepChecks/verifyCounts(_:inference:layout:rowsBefore:tablesKeepingRows:rowsCopied:)``).
    func tablesCopiedWhole(methods: [String: TableMethod]) -> Set<String> {
        Set(
            destination.tables.filter { table in
                methods[table.name] == .rebuilt && originTable(of: table) != nil && renumbersOntoItsOwn(table)
            }.map(\.name))
    }

    /// Whether every entity of `table` that has an origin gets exactly its own number from the
    /// step's `Z_ENT` map: its origin's number maps to it, and no other number does.
    private func renumbersOntoItsOwn(_ table: StoreLayout.Table) -> Bool {
        let map = columns.entityNumbers
        let members = destination.numbering.numbers(
            inHierarchyOf: destination.numbering.number(of: table.rootEntity) ?? 0)
        return members.allSatisfy { number in
            guard let name = destination.numbering.name(of: number), let origin = inference.entitySources[name] else {
                return true
            }
            guard let from = source.numbering.number(of: origin) else { return false }
            return map[from] == number && map.filter { $0.value == number }.count == 1
        }
    }

    /// Whether a statement rewrites rows of a table it alters (an `UPDATE` or a `DELETE`, as
    /// ``alter(_:into:)`` writes them), so the journal may hold up to the whole table: what the
    /// space check reserves for.
    func rewritesRows(methods: [String: TableMethod]) -> Bool {
        !preservesRows()
            || destination.tables.contains { table in
                guard methods[table.name] == .altered, let origin = originTable(of: table) else { return false }
                return alter(origin, into: table).contains {
                    $0.sql.hasPrefix("UPDATE ") || $0.sql.hasPrefix("DELETE ")
                }
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
