internal import GRDB

/// Keeps look-ups by value O(log n) on one store of a running migration, whatever indexes the
/// store has: the first look-up on a column that no index leads with gets one, and every later
/// look-up uses it.
///
/// Migration policies find objects by attribute (Core Data: a fetch request) and follow to-many
/// relationships (a `WHERE` on a foreign key or a join-table column) once per row. Without an
/// index each of those reads the whole table, and a migration of n rows does n² work. On a store
/// the migration writes, the index is created on the table itself; on a store it only reads
/// (attached read-only, never written), the column's values and row keys are copied once into an
/// indexed table of a scratch database instead. ``dropAll()`` removes both, so the migrated store
/// ends with exactly the schema Core Data gives a new store.
package final class LookupIndexes {
    /// How a column is searched.
    enum Path: Equatable {
        /// An index of the store leads with the column (its own, or one made here).
        case indexed
        /// The indexed copy `table` (columns `value`, `key`) in the scratch database.
        case copy(String)
        /// Neither is possible (a table without row IDs): the column is searched as it is.
        case scan
    }

    private let db: Database
    private let schema: String
    private let scratchSchema: String?
    private var paths: [String: Path] = [:]
    private var made: [(kind: String, name: String)] = []
    private var counter = 0

    /// Look-ups on the store attached to `connection` as `schema`. With `copiesInto`, the store
    /// is only read and columns without an index are copied into that attached scratch database;
    /// without it, indexes are created on the store itself.
    package convenience init(connection: StoreConnection, schema: String, copiesInto scratchSchema: String? = nil) {
        self.init(db: connection.db, schema: schema, copiesInto: scratchSchema)
    }

    init(db: Database, schema: String, copiesInto scratchSchema: String? = nil) {
        self.db = db
        self.schema = schema
        self.scratchSchema = scratchSchema
    }

    /// The indexes and copies made so far (qualified names), for tests and reports.
    package var madeNames: [String] { made.map(\.name) }

    /// Makes sure look-ups on `table.column` are served by an index, creating one on first use.
    /// A store's own writes then use it too (`UPDATE … WHERE column = ?`).
    package func prepare(table: String, column: String) throws {
        _ = try path(table: table, column: column)
    }

    /// An SQL condition, with one `?` for the value, that holds for the rows of `table` (named
    /// `alias` in the query) whose `column` IS the value, and that an index serves.
    package func condition(table: String, column: String, alias: String) throws -> String {
        let q = SQLIdentifier.quote
        switch try path(table: table, column: column) {
        case .indexed, .scan: return "\(q(alias)).\(q(column)) IS ?"
        case .copy(let copy): return "\(q(alias)).rowid IN (SELECT key FROM \(copy) WHERE value IS ?)"
        }
    }

    /// Drops every index and copy made here. Call it before the store is verified: its schema
    /// must be the one Core Data creates.
    package func dropAll() throws {
        for (kind, name) in made.reversed() { try db.execute(sql: "DROP \(kind) IF EXISTS \(name)") }
        made = []
        paths = [:]
        generation += 1
    }

    /// Counts ``dropAll()`` calls: a query built on a path made before the last one must be
    /// built again (readers keep their queries by it).
    private(set) var generation = 0

    func path(table: String, column: String) throws -> Path {
        let key = table + "\u{0}" + column
        if let known = paths[key] { return known }
        let found = try hasIndex(leadingWith: column, on: table) ? Path.indexed : try make(table: table, column: column)
        paths[key] = found
        return found
    }

    /// Whether an index of `table` (not partial, binary collation) has `column` first, or the
    /// column is the row ID itself.
    private func hasIndex(leadingWith column: String, on table: String) throws -> Bool {
        try column.uppercased() == "Z_PK" || Self.hasIndex(db, schema: schema, leadingWith: column, on: table)
    }

    /// Whether an index of `schema.table` (not partial, binary collation) has `column` first:
    /// what serves a look-up, or a range, by that column.
    static func hasIndex(_ db: Database, schema: String, leadingWith column: String, on table: String) throws -> Bool {
        try Bool.fetchOne(
            db,
            sql: """
                SELECT EXISTS (SELECT 1 FROM pragma_index_list(?, ?) l, pragma_index_xinfo(l.name, ?) i
                               WHERE l.partial = 0 AND i.seqno = 0 AND i.name = ? COLLATE NOCASE AND i.coll = 'BINARY')
                """, arguments: [table, schema, schema, column]) ?? false
    }

    private func make(table: String, column: String) throws -> Path {
        let q = SQLIdentifier.quote
        counter += 1
        let name = "chrysalis_lookup_\(schema)_\(counter)"
        guard let scratchSchema else {
            // Z_ENT second makes the index cover a look-up: its `Z_ENT IN (…)` is checked in the
            // index entry, which holds Z_PK too (the row ID), so no match costs a visit to its row.
            let hasEntityColumn =
                try Bool.fetchOne(
                    db,
                    sql: "SELECT EXISTS (SELECT 1 FROM pragma_table_info(?, ?) WHERE name = 'Z_ENT' COLLATE NOCASE)",
                    arguments: [table, schema]) ?? false
            let columns = q(column) + (hasEntityColumn && column.uppercased() != "Z_ENT" ? ", Z_ENT" : "")
            try db.execute(
                sql: "CREATE INDEX \(SQLIdentifier.qualified(name, schema: schema)) ON \(q(table)) (\(columns))")
            made.append(("INDEX", SQLIdentifier.qualified(name, schema: schema)))
            return .indexed
        }
        // Only a table with row IDs can be pointed back into; Core Data's tables all have them.
        guard
            (try? db.makeStatement(sql: "SELECT rowid FROM \(SQLIdentifier.qualified(table, schema: schema)) LIMIT 0"))
                != nil
        else { return .scan }
        let declared =
            try String.fetchOne(
                db, sql: "SELECT type FROM pragma_table_info(?, ?) WHERE name = ? COLLATE NOCASE",
                arguments: [table, schema, column]) ?? ""
        let copy = SQLIdentifier.qualified(name, schema: scratchSchema)
        // The declared type gives the copy the column's affinity, so `value IS ?` compares as
        // `column IS ?` would.
        try db.execute(
            sql: """
                CREATE TABLE \(copy) (value \(declared), key INTEGER);
                INSERT INTO \(copy) SELECT \(q(column)), rowid FROM \(SQLIdentifier.qualified(table, schema: schema));
                CREATE INDEX \(SQLIdentifier.qualified(name + "_value", schema: scratchSchema)) ON \(q(name)) (value, key);
                """)
        made.append(("TABLE", copy))
        return .copy(copy)
    }
}
