import GRDB
import SQLiteStore

/// Source → destination pairs per entity mapping, kept in a table on disk (`work.associations`)
/// rather than in memory, so memory stays flat however large the store.
///
/// A set-based mapping whose destination keys come out equal to its source keys (see
/// ``Identity``) writes no rows at all: its pairs are the source table's own rows, read through
/// ``relation(_:)``. That saves writing and indexing one row per instance, the largest cost of a
/// compiled mapping, and lets its lookups use the source's primary key.
final class AssociationTable {
    let db: Database
    private var identities: [Int: Identity] = [:]

    /// A mapping that gave every source instance of one entity a destination instance with the
    /// same `Z_PK`: exactly the keys the numbering in creation order would have given them.
    struct Identity {
        let sourceTable: String
        let sourceEntity: Int
        let destinationEntity: Int
    }

    init(db: Database) { self.db = db }

    static let schema = "work"

    /// Records that `mapping`'s pairs are `identity`'s, from now until the next ``reset()``.
    func markIdentity(mapping: Int, _ identity: Identity) { identities[mapping] = identity }

    /// Whether `mapping` keeps its source keys (and has no rows here).
    func isIdentity(_ mapping: Int) -> Bool { identities[mapping] != nil }

    /// The pairs of `mapping` as an SQL relation with the association table's columns
    /// (`mapping`, `source_entity`, `source_pk`, `destination_entity`, `destination_pk`, and
    /// `rowid` in creation order), for joins and look-ups that work for either kind.
    func relation(_ mapping: Int) -> String {
        guard let identity = identities[mapping] else { return "work.associations" }
        return """
            (SELECT \(mapping) AS mapping, Z_ENT AS source_entity, Z_PK AS source_pk, \(identity.destinationEntity) AS destination_entity, \
            Z_PK AS destination_pk, Z_PK AS rowid FROM src.\(ColumnNaming.quote(identity.sourceTable)) WHERE Z_ENT = \(identity.sourceEntity))
            """
    }

    /// Creates the table in the attached work database, empty.
    func reset() throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS work.associations (mapping INTEGER NOT NULL, source_entity INTEGER, source_pk INTEGER,
                destination_entity INTEGER NOT NULL, destination_pk INTEGER NOT NULL);
            CREATE INDEX IF NOT EXISTS work.associations_by_source ON associations (mapping, source_pk);
            CREATE INDEX IF NOT EXISTS work.associations_by_destination ON associations (mapping, destination_pk);
            DELETE FROM work.associations;
            """)
        identities = [:]
    }

    func add(mapping: Int, source: ObjectID?, destination: ObjectID) throws {
        try db.cachedStatement(sql: "INSERT INTO work.associations VALUES (?, ?, ?, ?, ?)").execute(arguments: [
            mapping, source?.entityNumber, source?.primaryKey, destination.entityNumber, destination.primaryKey,
        ])
    }

    func destinations(mapping: Int, source: ObjectID) throws -> [ObjectID] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT destination_entity, destination_pk FROM \(relation(mapping)) WHERE mapping = ? AND source_pk = ? ORDER BY rowid"),
                         arguments: [mapping, source.primaryKey]).map { ObjectID(entityNumber: $0[0], primaryKey: $0[1]) }
    }

    func sources(mapping: Int, destination: ObjectID) throws -> [ObjectID] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT source_entity, source_pk FROM \(relation(mapping)) WHERE mapping = ? AND destination_pk = ? AND source_pk IS NOT NULL ORDER BY rowid"),
                         arguments: [mapping, destination.primaryKey]).map { ObjectID(entityNumber: $0[0], primaryKey: $0[1]) }
    }

    /// The next `limit` pairs of `mapping` after `rowid`, in creation order.
    func page(mapping: Int, after rowid: Int64, limit: Int) throws -> [(rowid: Int64, source: ObjectID?, destination: ObjectID)] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT rowid, source_entity, source_pk, destination_entity, destination_pk FROM \(relation(mapping))
            WHERE mapping = ? AND rowid > ? ORDER BY rowid LIMIT ?
            """), arguments: [mapping, rowid, limit]).map { row in
            let source: ObjectID? = (row[2] as Int64?).map { ObjectID(entityNumber: row[1], primaryKey: $0) }
            return (row[0], source, ObjectID(entityNumber: row[3], primaryKey: row[4]))
        }
    }

    func count(mapping: Int) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM \(relation(mapping)) WHERE mapping = ?", arguments: [mapping]) ?? 0
    }
}
