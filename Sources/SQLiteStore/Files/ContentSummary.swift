/// What a store holds, in a few numbers per table: enough to tell that another connection
/// committed to it since, read in SQLite's own loops without decoding a row in Swift.
///
/// Core Data allocates every new object's key from `Z_PRIMARYKEY` (its `Z_MAX` grows) and bumps
/// an object's `Z_OPT` on every save, so an app's insert, update or delete changes a table's
/// count or one of its sums, whichever model the app is on and whatever entity number it uses.
/// A file's times and size do not show that (a commit in the same clock tick, into a page the
/// file has), and a count per entity misses a row under an entity number the model does not
/// give it. A write that changes none of these numbers (a `sqlite3` shell's `UPDATE` of a value
/// alone) is not seen: RELIABILITY.md says so.
package struct ContentSummary: Equatable, Sendable {
    /// Per table: its rows, then the sums of its `Z_PK`, `Z_OPT` and `Z_MAX` columns (those it has).
    package let tables: [String: [SQLValue]]

    /// The columns summed beside each table's count, when the table has them.
    static let summedColumns = ["Z_PK", "Z_OPT", "Z_MAX"]
}

extension StoreConnection {
    /// The summary of every table of `schema` (the store itself unless another is named), read in
    /// this connection's transaction: taken inside a write transaction, it is what that
    /// transaction commits.
    package func contentSummary(schema: String = "main") throws -> ContentSummary {
        let quotedSchema = SQLIdentifier.quote(schema)
        let names = try strings(
            SQLStatement(
                "SELECT name FROM \(quotedSchema).sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite!_%' ESCAPE '!'"
            ))
        var tables: [String: [SQLValue]] = [:]
        for name in names {
            let columns = Set(
                try strings(
                    SQLStatement("SELECT upper(name) FROM pragma_table_info(?, ?)", [.text(name), .text(schema)])))
            let sums = ContentSummary.summedColumns.filter(columns.contains).map { "total(\(SQLIdentifier.quote($0)))" }
            tables[name] =
                try row(
                    SQLStatement(
                        "SELECT \((["count(*)"] + sums).joined(separator: ", ")) FROM \(quotedSchema).\(SQLIdentifier.quote(name))"
                    )) ?? []
        }
        return ContentSummary(tables: tables)
    }
}

extension PersistentStore {
    /// The store's ``ContentSummary``, read on its own connection.
    package func contentSummary() throws -> ContentSummary {
        try withReadConnection { try $0.contentSummary() }
    }
}
