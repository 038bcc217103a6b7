import SQLiteStore

/// Source → destination pairs per entity mapping, kept in a table on disk (`work.associations`)
/// rather than in memory, so memory stays flat however large the store.
///
/// A mapping whose destination keys come out equal to its source keys, or a constant apart (see
/// ``Identity``), writes no rows at all: its pairs are the source table's own rows, read through
/// ``relation(_:)``.
/// That saves writing and indexing one row per instance, the largest cost of a compiled mapping,
/// and lets its lookups use the source's primary key. A set-based mapping knows this before it
/// starts; a row-by-row one (a custom policy) finds out pair by pair, and writes its pairs out
/// as rows the moment one does not follow the pattern.
final class AssociationTable {
    let connection: StoreConnection
    private let sourceLayout: StoreLayout
    private var identities: [Int: Identity] = [:]
    /// Mappings whose first pair broke the pattern, or whose run was written out: rows from now on.
    private var written: Set<Int> = []

    /// A mapping that gave the source instances of one entity with keys `keys`, consecutive,
    /// destination instances with the same `Z_PK` (plus `offset`), in creation order: all of the
    /// entity's instances (a set-based mapping), or those paired so far (a row-by-row one).
    ///
    /// A row-by-row mapping's destination keys are one run, but they start at 1 in a new store,
    /// while the source's start wherever its history left them (the objc.io store's books at 9):
    /// the same run, shifted. Set-based mappings keep the source's keys (offset 0).
    struct Identity {
        let sourceTable: String
        let sourceEntity: Int
        let destinationEntity: Int
        var keys: ClosedRange<Int64>
        /// What each destination key adds to its source's.
        var offset: Int64 = 0
        /// Set when the identity is only planned (`plan --sql`): the key range is known when the
        /// mapping runs, and its bounds print as parameters named after this.
        var plannedFor: String?

        /// The range's bounds as SQL: the keys, or parameters when only planned.
        var bounds: (low: String, high: String) {
            guard let plannedFor else { return (String(keys.lowerBound), String(keys.upperBound)) }
            return (":\(plannedFor).first_key", ":\(plannedFor).last_key")
        }

        /// Adds `source` → `destination` to the run when it is the run's next pair; false, changing nothing, otherwise.
        mutating func extend(source: ObjectID, destination: ObjectID) -> Bool {
            guard source.entityNumber == sourceEntity, destination.entityNumber == destinationEntity,
                keys.upperBound < .max,
                source.primaryKey == keys.upperBound + 1,
                case let (shifted, overflow) = source.primaryKey.addingReportingOverflow(offset), !overflow,
                destination.primaryKey == shifted
            else { return false }
            keys = keys.lowerBound...source.primaryKey
            return true
        }

        func contains(_ source: ObjectID) -> Bool {
            source.entityNumber == sourceEntity && keys.contains(source.primaryKey)
        }

        /// The destination a foreign key `key` into the source table maps to: itself inside the
        /// keys, else nothing; ``identityLookup(_:key:into:)`` in Swift, for one row.
        func destination(ofKey key: Int64) -> ObjectID? {
            keys.contains(key) ? ObjectID(entityNumber: destinationEntity, primaryKey: key + offset) : nil
        }
    }

    init(connection: StoreConnection, sourceLayout: StoreLayout) {
        self.connection = connection
        self.sourceLayout = sourceLayout
    }

    static let schema = "work"

    /// Records that `mapping`'s pairs are `identity`'s, from now until the next ``reset()``.
    func markIdentity(mapping: Int, _ identity: Identity) { identities[mapping] = identity }

    /// Replaces every mapping's identity with `planned`, touching no table: what a plan assumes
    /// while it compiles statements (``Identity/plannedFor``), never used by a run.
    func assumeIdentities(_ planned: [Int: Identity]) { identities = planned }

    /// Whether `mapping` keeps its source keys (and has no rows here): one destination per
    /// source, with the source's key.
    func isIdentity(_ mapping: Int) -> Bool { identities[mapping] != nil }

    /// `mapping`'s identity, when it keeps its source keys.
    func identity(of mapping: Int) -> Identity? { identities[mapping] }

    /// The pairs of `mapping` as an SQL relation with the association table's columns
    /// (`mapping`, `source_entity`, `source_pk`, `destination_entity`, `destination_pk`, and
    /// `rowid` in creation order), for joins and look-ups that work for either kind.
    func relation(_ mapping: Int) -> String {
        guard let identity = identities[mapping] else { return "work.associations" }
        return """
            (SELECT \(mapping) AS mapping, Z_ENT AS source_entity, Z_PK AS source_pk, \(identity.destinationEntity) AS destination_entity, \
            \(identity.offset == 0 ? "Z_PK" : "Z_PK + \(identity.offset)") AS destination_pk, Z_PK AS rowid FROM src.\(SQLIdentifier.quote(identity.sourceTable)) WHERE Z_ENT = \(identity.sourceEntity) \
            AND Z_PK BETWEEN \(identity.bounds.low) AND \(identity.bounds.high))
            """
    }

    /// SQL for the destination key (and entity) `mapping` gave the source instance whose key is
    /// the SQL expression `key`, a foreign key into `table`, when its pairs are an identity over
    /// `table`: the key itself (plus the identity's offset) inside the identity's range (every key
    /// there is a paired instance), NULL outside it, with `paired` the condition for being inside
    /// and `value` the destination key where `paired` holds. No look-up per row. `nil` when the
    /// pairs are rows.
    func identityLookup(_ mapping: Int, key: String, into table: String) -> IdentityLookup? {
        guard let identity = identities[mapping], identity.sourceTable == table else { return nil }
        let paired = "\(key) BETWEEN \(identity.bounds.low) AND \(identity.bounds.high)"
        let value = identity.offset == 0 ? key : "(\(key) + \(identity.offset))"
        return IdentityLookup(
            key: "CASE WHEN \(paired) THEN \(value) END",
            entity: "CASE WHEN \(paired) THEN \(identity.destinationEntity) END",
            paired: paired, value: value)
    }

    /// An identity look-up's SQL: ``identityLookup(_:key:into:)``.
    struct IdentityLookup {
        let key: String, entity: String, paired: String, value: String
    }

    /// Creates the table in the attached work database, empty.
    func reset() throws {
        try connection.execute(
            SQLStatement(
                """
                CREATE TABLE IF NOT EXISTS work.associations (mapping INTEGER NOT NULL, source_entity INTEGER, source_pk INTEGER,
                    destination_entity INTEGER NOT NULL, destination_pk INTEGER NOT NULL);
                CREATE INDEX IF NOT EXISTS work.associations_by_source ON associations (mapping, source_pk);
                CREATE INDEX IF NOT EXISTS work.associations_by_destination ON associations (mapping, destination_pk);
                DELETE FROM work.associations;
                """))
        identities = [:]
        written = []
    }

    /// Records one pair of a row-by-row mapping: as the next key of its identity run while the
    /// pairs keep their source keys (or all one offset from them), consecutively; as a row otherwise.
    func add(mapping: Int, source: ObjectID?, destination: ObjectID) throws {
        if let source, !written.contains(mapping) {
            // Grown in place: one look-up and no copy of the identity, once per row of a policy.
            if let index = identities.index(forKey: mapping),
                identities.values[index].extend(source: source, destination: destination)
            {
                return
            }
            let (offset, overflow) = destination.primaryKey.subtractingReportingOverflow(source.primaryKey)
            if identities[mapping] == nil, !overflow, let name = sourceLayout.numbering.name(of: source.entityNumber),
                let table = sourceLayout.table(for: name)
            {
                identities[mapping] = Identity(
                    sourceTable: table.name, sourceEntity: source.entityNumber,
                    destinationEntity: destination.entityNumber,
                    keys: source.primaryKey...source.primaryKey, offset: offset)
                return
            }
        }
        try writeOut(mapping)
        try insertPair().run([
            SQLValue(mapping), source.map { SQLValue($0.entityNumber) } ?? .null,
            source.map { .integer($0.primaryKey) } ?? .null,
            SQLValue(destination.entityNumber), .integer(destination.primaryKey),
        ])
    }

    /// Turns `mapping`'s identity pairs into rows, in creation order, before a pair that breaks the pattern.
    private func writeOut(_ mapping: Int) throws {
        guard !written.contains(mapping) else { return }
        written.insert(mapping)
        guard identities[mapping] != nil else { return }
        try connection.execute(
            SQLStatement(
                """
                INSERT INTO work.associations SELECT mapping, source_entity, source_pk, destination_entity, \
                destination_pk FROM \(relation(mapping)) ORDER BY rowid
                """
            ))
        identities[mapping] = nil
    }

    func destinations(mapping: Int, source: ObjectID) throws -> [ObjectID] {
        // Answered without a query while the pairs are an identity: per-row lookups would
        // otherwise prepare a statement for every new key range.
        if let identity = identities[mapping] {
            return identity.contains(source)
                ? [ObjectID(entityNumber: identity.destinationEntity, primaryKey: source.primaryKey + identity.offset)]
                : []
        }
        return try connection.prepare(
            """
            SELECT destination_entity, destination_pk FROM \(relation(mapping)) WHERE mapping = ? AND source_pk = \
            ? ORDER BY rowid
            """
        )
        .rows([SQLValue(mapping), .integer(source.primaryKey)]).map { Self.objectID($0[0], $0[1]) }
    }

    func sources(mapping: Int, destination: ObjectID) throws -> [ObjectID] {
        if let identity = identities[mapping] {
            let (key, overflow) = destination.primaryKey.subtractingReportingOverflow(identity.offset)
            let source = ObjectID(entityNumber: identity.sourceEntity, primaryKey: key)
            guard !overflow else { return [] }
            return destination.entityNumber == identity.destinationEntity && identity.contains(source) ? [source] : []
        }
        return try connection.prepare(
            """
            SELECT source_entity, source_pk FROM \(relation(mapping)) WHERE mapping = ? AND destination_pk = ? AND \
            source_pk IS NOT NULL ORDER BY rowid
            """
        )
        .rows([SQLValue(mapping), .integer(destination.primaryKey)]).map { Self.objectID($0[0], $0[1]) }
    }

    /// The next `limit` pairs of `mapping` after `rowid`, in creation order.
    func page(mapping: Int, after rowid: Int64, limit: Int) throws -> [(
        rowid: Int64, source: ObjectID?, destination: ObjectID
    )] {
        try connection.prepare(
            """
            SELECT rowid, source_entity, source_pk, destination_entity, destination_pk FROM \(relation(mapping))
            WHERE mapping = ? AND rowid > ? ORDER BY rowid LIMIT ?
            """
        ).rows([SQLValue(mapping), .integer(rowid), SQLValue(limit)]).map { row in
            let source: ObjectID? = row[2].isNull ? nil : Self.objectID(row[1], row[2])
            return (row[0].integer ?? 0, source, Self.objectID(row[3], row[4]))
        }
    }

    func count(mapping: Int) throws -> Int {
        if let identity = identities[mapping] { return identity.keys.count }
        return Int(
            try connection.integer(
                SQLStatement("SELECT count(*) FROM \(relation(mapping)) WHERE mapping = ?", [SQLValue(mapping)])) ?? 0)
    }

    private var preparedInsert: PreparedStatement?

    /// The statement that records one pair, prepared on first use (the table exists by then)
    /// and kept: it runs once per pair.
    private func insertPair() throws -> PreparedStatement {
        if let preparedInsert { return preparedInsert }
        let made = try connection.prepare("INSERT INTO work.associations VALUES (?, ?, ?, ?, ?)")
        preparedInsert = made
        return made
    }

    /// An object ID from an entity number and a key as the table stores them (never NULL here).
    private static func objectID(_ entity: SQLValue, _ key: SQLValue) -> ObjectID {
        ObjectID(entityNumber: Int(entity.integer ?? 0), primaryKey: key.integer ?? 0)
    }
}
