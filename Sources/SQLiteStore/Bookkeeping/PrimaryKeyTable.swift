internal import GRDB

/// A store's `Z_PRIMARYKEY` table, read with every value checked: one row per entity with its
/// number (`Z_ENT`), name, parent (`Z_SUPER`) and the highest key handed out (`Z_MAX`).
///
/// Everything that lays a store out or numbers its new rows starts here, so a damaged row
/// (text in `Z_MAX`, a NULL name, a number twice, a key with no room after it) is refused once,
/// with the table and column named, before any of it is used.
package struct PrimaryKeyTable: Sendable {
    /// One row.
    package struct Row: Hashable, Sendable {
        /// `Z_ENT`.
        package var number: Int
        /// `Z_NAME`.
        package var name: String
        /// `Z_SUPER`, 0 for a root.
        package var superNumber: Int
        /// `Z_MAX`, 0 when unset.
        package var max: Int64
    }

    /// The highest `Z_ENT` taken for an entity number. Core Data numbers entities from 1, one
    /// per entity; a number past this is a damaged row, and would overflow 32-bit arithmetic.
    package static let highestEntityNumber = Int(Int32.max)
    /// The highest key (`Z_PK`, `Z_MAX`) a store may already use: far past any real store, and
    /// far enough from `Int64.max` that counting on from it cannot overflow.
    package static let highestKey: Int64 = 1 << 62

    /// The rows, in `Z_ENT` order.
    package var rows: [Row]

    /// The numbering the rows record.
    package var numbering: EntityNumbering {
        EntityNumbering(
            entries: rows.map { EntityNumbering.Entry(number: $0.number, name: $0.name, superNumber: $0.superNumber) })
    }

    /// Reads and checks `Z_PRIMARYKEY` of the store attached as `schema`; `path` names it in errors.
    static func read(_ db: Database, path: String, schema: String = "main") throws -> PrimaryKeyTable {
        let table = SQLIdentifier.qualified("Z_PRIMARYKEY", schema: schema)
        let column = { (name: String) in CheckedColumn(path: path, table: "Z_PRIMARYKEY", column: name) }
        var rows: [Row] = []
        var numbers: [String: Int] = [:]
        for row in try GRDB.Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM \(table) ORDER BY Z_ENT") {
            let number = try column("Z_ENT").requiredInteger(row.raw(0))
            let place = "the row of Z_ENT \(number)"
            guard (1...Int64(highestEntityNumber)).contains(number) else {
                throw column("Z_ENT").wrongKind(row.raw(0), expected: "an entity number (1 or more)")
            }
            guard let name = try column("Z_NAME").text(row.raw(1), row: place), !name.isEmpty else {
                throw column("Z_NAME").wrongKind(row.raw(1), expected: "an entity name", row: place)
            }
            let parent = try column("Z_SUPER").integer(row.raw(2), row: place) ?? 0
            guard (0...Int64(highestEntityNumber)).contains(parent) else {
                throw column("Z_SUPER").wrongKind(row.raw(2), expected: "an entity number (or 0)", row: place)
            }
            let max = try column("Z_MAX").integer(row.raw(3), row: place) ?? 0
            guard (0...highestKey).contains(max) else {
                throw column("Z_MAX").wrongKind(row.raw(3), expected: "a key from 0 to \(highestKey)", row: place)
            }
            if let earlier = numbers.updateValue(Int(number), forKey: name) {
                throw StoreError(
                    .corrupt, path: path, "Z_PRIMARYKEY names entity \(name) twice (Z_ENT \(earlier) and \(number))",
                    fix: CheckedColumn.damagedFix(path))
            }
            rows.append(Row(number: Int(number), name: name, superNumber: Int(parent), max: max))
        }
        return PrimaryKeyTable(rows: rows)
    }

    /// `Z_MAX` of the row numbered `number` in the store attached as `schema`, checked; 0 when
    /// the row is missing or unset.
    static func recordedMax(_ db: Database, number: Int, path: String, schema: String) throws -> Int64 {
        let value =
            try DatabaseValue.fetchOne(
                db, sql: "SELECT Z_MAX FROM \(SQLIdentifier.qualified("Z_PRIMARYKEY", schema: schema)) WHERE Z_ENT = ?",
                arguments: [number]) ?? .null
        let column = CheckedColumn(path: path, table: "Z_PRIMARYKEY", column: "Z_MAX")
        let max = try column.integer(value, row: "the row of Z_ENT \(number)") ?? 0
        guard (0...highestKey).contains(max) else {
            throw column.wrongKind(value, expected: "a key from 0 to \(highestKey)", row: "the row of Z_ENT \(number)")
        }
        return max
    }
}
