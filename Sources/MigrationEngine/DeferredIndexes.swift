import GRDB
import ObjectModel
import SQLiteStore

/// The destination's indexes, dropped while a mapping step bulk-loads the new store and built
/// once afterwards: one sorted build is much cheaper than updating every index on every insert.
/// They come back before anything would search by them (row-by-row relationship work,
/// validation) and always before the store is verified.
final class DeferredIndexes {
    private var statements: [String]

    private init(statements: [String]) { self.statements = statements }

    /// Drops Core Data's indexes from the (still empty) destination store `main`.
    static func drop(in db: Database, layout: StoreLayout) throws -> DeferredIndexes {
        let indexes = StoreSchema(layout: layout).indexes
        for index in indexes { try db.execute(sql: "DROP INDEX IF EXISTS main.\(ColumnNaming.quote(index.name))") }
        return DeferredIndexes(statements: indexes.map(LightweightMigration.statement(for:)))
    }

    /// Builds the indexes, the first time it is called.
    func create(in db: Database) throws {
        try Self.build(statements, in: db, schema: "main")
        statements = []
    }

    /// Runs index-building `statements` on `schema` with SQLite's sorter set up for it: one helper
    /// thread sorts while the main thread reads the table (the machine has a second core), and the
    /// page cache is held at 4 MB meanwhile, so each sorted run stays small enough for the CPU's
    /// caches. One 10M-row index took 17 s with a 16 MB cache and no helper, 10 s like this,
    /// and the process held 17 MB instead of 37 MB (BENCHMARKS.md). Both settings are put back.
    static func build(_ statements: [String], in db: Database, schema: String) throws {
        guard !statements.isEmpty else { return }
        let cache = try Int.fetchOne(db, sql: "PRAGMA \(schema).cache_size") ?? -2000
        let threads = try Int.fetchOne(db, sql: "PRAGMA threads") ?? 0
        try db.execute(sql: "PRAGMA \(schema).cache_size = -4096; PRAGMA threads = 1")
        for statement in statements { try db.execute(sql: statement) }
        try db.execute(sql: "PRAGMA \(schema).cache_size = \(cache); PRAGMA threads = \(threads)")
    }
}
