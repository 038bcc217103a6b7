/// What a store holds, in a few numbers per table, enough to tell that another connection
/// inserted rows since, each read in a handful of page reads whatever the store's size.
///
/// Core Data allocates every new object's key from `Z_PRIMARYKEY` (its `Z_MAX` grows), and a new
/// row of any table, a join table's link included, takes the next rowid; so an app's insert
/// changes `Z_PRIMARYKEY`'s sum or a table's largest rowid, whichever model the app is on and
/// whatever entity number it uses. A file's times and size do not show that (a commit in the same
/// clock tick, into a page the file has), and a count per entity misses a row under an entity
/// number the model gives another entity. `max(rowid)` reads one path of a table's b-tree, where
/// `count(*)` would walk every page and a sum of `Z_OPT` decode every row, at every step of a plan
/// (`chrysalis-bench --scenario whole-chain`). So a delete or an update made and checkpointed in
/// the same clock tick as the step before ended is seen by neither this nor the files'
/// fingerprint: RELIABILITY.md says so.
package struct ContentSummary: Equatable, Sendable {
    /// Per table: its largest rowid (its row count, for a table without rowids), then, for
    /// `Z_PRIMARYKEY` and `Z_METADATA`, what they hold.
    package let tables: [String: [SQLValue]]
}

extension StoreConnection {
    /// The summary of every table of `schema` (the store itself unless another is named), read in
    /// this connection's transaction: taken inside a write transaction, it is what that
    /// transaction commits.
    package func contentSummary(schema: String = "main") throws -> ContentSummary {
        let quotedSchema = SQLIdentifier.quote(schema)
        let names = try strings(
            SQLStatement(
                """
                SELECT name FROM \(quotedSchema).sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite!_%' \
                ESCAPE '!'
                """))
        var tables: [String: [SQLValue]] = [:]
        for name in names {
            let table = "\(quotedSchema).\(SQLIdentifier.quote(name))"
            switch name.uppercased() {
            case "Z_PRIMARYKEY": tables[name] = try row(SQLStatement("SELECT count(*), total(Z_MAX) FROM \(table)"))
            case "Z_METADATA":
                tables[name] = try row(SQLStatement("SELECT count(*), total(length(Z_PLIST)) FROM \(table)"))
            default:
                // A table without rowids (an app's) is counted instead.
                if let last = try? row(SQLStatement("SELECT max(rowid) FROM \(table)")) {
                    tables[name] = last
                } else {
                    tables[name] = try row(SQLStatement("SELECT count(*) FROM \(table)"))
                }
            }
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
