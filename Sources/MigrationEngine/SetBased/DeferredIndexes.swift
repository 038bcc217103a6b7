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
        try IndexBuild.run(statements, in: db)
        statements = []
    }
}
