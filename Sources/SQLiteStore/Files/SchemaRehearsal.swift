internal import GRDB

/// A store's schema without its rows, in memory: its tables, indexes and views (an app's
/// triggers left out) and its bookkeeping rows (`Z_METADATA`, `Z_PRIMARYKEY`). A step's own
/// statements run on it in milliseconds whatever the store's size, and show, before the store
/// is touched, what they would break: an app's view over a column a step drops, or over a table
/// it renames, stops the step when the view is made again after it.
package final class SchemaRehearsal {
    private let queue: DatabaseQueue
    /// The store rehearsed, for messages.
    package let path: String

    /// The schema of `store`, copied; nil when the store holds no view of an app's, since only a
    /// view can stop a step that way.
    package init?(of store: PersistentStore) throws {
        let (objects, bookkeeping) = try store.read { db -> ([String], [(String, [Row])]) in
            let objects = try String.fetchAll(
                db,
                sql: """
                    SELECT sql FROM main.sqlite_master WHERE sql IS NOT NULL AND type IN ('table', 'index', 'view') \
                    AND name NOT LIKE 'sqlite!_%' ESCAPE '!' ORDER BY rowid
                    """)
            let rows = try ["Z_METADATA", "Z_PRIMARYKEY"].filter { try db.tableExists($0) }.map {
                ($0, try Row.fetchAll(db, sql: "SELECT * FROM main.\(SQLIdentifier.quote($0))"))
            }
            return (objects, rows)
        }
        guard
            try store.read({ db in
                try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM main.sqlite_master WHERE type = 'view')")
                    ?? false
            })
        else { return nil }
        path = store.path
        queue = try DatabaseQueue()
        try queue.writeWithoutTransaction { db in
            for sql in objects { try db.execute(sql: sql) }
            for (table, rows) in bookkeeping {
                for row in rows {
                    let marks = Array(repeating: "?", count: row.count).joined(separator: ", ")
                    try db.execute(
                        sql: "INSERT INTO \(SQLIdentifier.quote(table)) VALUES (\(marks))",
                        arguments: StatementArguments(Array(row.databaseValues)))
                }
            }
        }
    }

    /// Runs `body` on the copy's connection, in one transaction it keeps: each step rehearsed
    /// leaves the schema the next one starts from.
    package func withConnection<T>(_ body: (StoreConnection) throws -> T) throws -> T {
        do {
            return try queue.writeWithoutTransaction { db in try body(StoreConnection(db: db, path: path)) }
        } catch let error as DatabaseError {
            throw StoreError.from(error, path: path)
        }
    }
}
