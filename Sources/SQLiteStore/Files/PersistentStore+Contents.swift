internal import GRDB
import ObjectModel

extension PersistentStore {
    /// The layout of this store under `model`, with the store's own entity numbers.
    package func layout(for model: ManagedObjectModel) throws -> StoreLayout {
        StoreLayout(
            model: model, numbering: EntityNumbering(model: model, recorded: try recordedNumbering()),
            storeTables: try tableColumns())
    }

    /// Every table of the store with its columns, in table order: the names a store Core Data
    /// wrote really has, read rather than predicted.
    package func tableColumns() throws -> [String: [String]] {
        // One statement for every table (a layout is asked for many times in a run): each
        // table's columns in their order, as `pragma_table_info` gives them.
        try read { db in
            var tables: [String: [String]] = [:]
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT m.name, p.name FROM sqlite_master AS m, pragma_table_info(m.name) AS p
                    WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' ORDER BY m.name, p.cid
                    """)
            while let row = try rows.next() { tables[row[0], default: []].append(row[1]) }
            return tables
        }
    }

    /// Rows per concrete entity (rows whose `Z_ENT` is the entity's number), by entity name.
    /// With a model the names are the model's; without one, `Z_PRIMARYKEY`'s.
    package func rowCounts(model: ManagedObjectModel? = nil) throws -> [String: Int] {
        try rowCounts(model: model, tablesOfOneEntity: .byEntityNumber)
    }

    /// Rows per concrete entity as the tables hold them, for what needs sizes rather than proof
    /// (a migration's progress, space and report of what it started from). A table only one
    /// entity lives in is counted whole: SQLite counts its b-tree's cells without reading a row,
    /// far faster than reading every row's `Z_ENT`. So a damaged row there carrying
    /// another entity's number counts as that entity's, and a migration's report shows it as a
    /// row it did not carry. Tables of a hierarchy are counted by `Z_ENT`, as ``rowCounts(model:)``.
    package func tableRowCounts(model: ManagedObjectModel) throws -> [String: Int] {
        try rowCounts(model: model, tablesOfOneEntity: .whole)
    }

    private enum OneEntityTableCount { case byEntityNumber, whole }

    private func rowCounts(model: ManagedObjectModel?, tablesOfOneEntity: OneEntityTableCount) throws -> [String: Int] {
        let numbering =
            try model.map { EntityNumbering(model: $0, recorded: try recordedNumbering()) } ?? recordedNumbering()
        var tables: [String: [Int]] = [:]
        for entry in numbering.entries {
            var root = entry
            var seen: Set<Int> = [entry.number]
            while root.superNumber != 0, let parent = numbering.entries.first(where: { $0.number == root.superNumber }),
                seen.insert(parent.number).inserted
            {
                root = parent
            }
            tables[ColumnNaming.table(forRoot: root.name), default: []].append(entry.number)
        }
        return try read { db in
            var counts: [String: Int] = [:]
            for (table, numbers) in tables.sorted(by: { $0.key < $1.key }) {
                for number in numbers { counts[numbering.name(of: number) ?? "\(number)"] = 0 }
                guard try db.tableExists(table) else { continue }
                let quoted = SQLIdentifier.quote(table)
                if tablesOfOneEntity == .whole, numbers.count == 1, let name = numbering.name(of: numbers[0]) {
                    counts[name] = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(quoted)") ?? 0
                    continue
                }
                // One scan finds the usual case, a table of one entity, without the sort a
                // GROUP BY needs (a sort of every row, far slower on a large table).
                guard let span = try Row.fetchOne(db, sql: "SELECT count(Z_ENT), min(Z_ENT), max(Z_ENT) FROM \(quoted)")
                else { continue }
                let entity = CheckedColumn(path: path, table: table, column: "Z_ENT")
                let single = try entity.integer(span.raw(1)), other = try entity.integer(span.raw(2))
                let rows =
                    single != nil && single == other
                    ? [span] : try Row.fetchAll(db, sql: "SELECT count(*), Z_ENT FROM \(quoted) GROUP BY Z_ENT")
                for row in rows {
                    let number = try entity.integer(row.raw(1)).map { Int($0) } ?? 0
                    // A number of another table's entity is a damaged row, not one of that entity's.
                    if numbers.contains(number), let name = numbering.name(of: number) {
                        counts[name] = try CheckedColumn(path: path, table: table, column: "count(*)").requiredInt(
                            row.raw(0))
                    }
                }
            }
            return counts
        }
    }
}
