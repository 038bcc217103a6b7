import GRDB
import SQLiteStore

/// Source → destination pairs per entity mapping, kept in a table on disk (`work.associations`)
/// rather than in memory, so memory stays flat however large the store.
struct AssociationTable {
    let db: Database

    static let schema = "work"

    /// Creates the table in the attached work database, empty.
    func reset() throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS work.associations (mapping INTEGER NOT NULL, source_entity INTEGER, source_pk INTEGER,
                destination_entity INTEGER NOT NULL, destination_pk INTEGER NOT NULL);
            CREATE INDEX IF NOT EXISTS work.associations_by_source ON associations (mapping, source_pk);
            CREATE INDEX IF NOT EXISTS work.associations_by_destination ON associations (mapping, destination_pk);
            DELETE FROM work.associations;
            """)
    }

    func add(mapping: Int, source: ObjectID?, destination: ObjectID) throws {
        try db.cachedStatement(sql: "INSERT INTO work.associations VALUES (?, ?, ?, ?, ?)").execute(arguments: [
            mapping, source?.entityNumber, source?.primaryKey, destination.entityNumber, destination.primaryKey,
        ])
    }

    func destinations(mapping: Int, source: ObjectID) throws -> [ObjectID] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT destination_entity, destination_pk FROM work.associations WHERE mapping = ? AND source_pk = ? ORDER BY rowid"),
                         arguments: [mapping, source.primaryKey]).map { ObjectID(entityNumber: $0[0], primaryKey: $0[1]) }
    }

    func sources(mapping: Int, destination: ObjectID) throws -> [ObjectID] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT source_entity, source_pk FROM work.associations WHERE mapping = ? AND destination_pk = ? AND source_pk IS NOT NULL ORDER BY rowid"),
                         arguments: [mapping, destination.primaryKey]).map { ObjectID(entityNumber: $0[0], primaryKey: $0[1]) }
    }

    /// The next `limit` pairs of `mapping` after `rowid`, in creation order.
    func page(mapping: Int, after rowid: Int64, limit: Int) throws -> [(rowid: Int64, source: ObjectID?, destination: ObjectID)] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT rowid, source_entity, source_pk, destination_entity, destination_pk FROM work.associations
            WHERE mapping = ? AND rowid > ? ORDER BY rowid LIMIT ?
            """), arguments: [mapping, rowid, limit]).map { row in
            let source: ObjectID? = (row[2] as Int64?).map { ObjectID(entityNumber: row[1], primaryKey: $0) }
            return (row[0], source, ObjectID(entityNumber: row[3], primaryKey: row[4]))
        }
    }

    func count(mapping: Int) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM work.associations WHERE mapping = ?", arguments: [mapping]) ?? 0
    }
}
