import Foundation
import ObjectModel
import SQLiteStore

/// Stage 1 as set-based SQL, while it runs: each chunk of source rows moves through the
/// statements ``InstanceInsertSQL`` compiled for the mapping, with the chunk's bounds and the
/// keys reserved for it bound.
struct SetBasedInstances {
    /// The pass the mapping runs in.
    let pass: MappingPass
    var manager: MigrationManager { pass.manager }
    let sql: InstanceInsertSQL
    var mapping: EntityMapping { sql.mapping }
    var mappingIndex: Int { sql.mappingIndex }
    /// To-one relationship mappings written by the stage-1 insert itself, which stage 2 then skips.
    var foldedRelationships: Set<String> { sql.foldedRelationships }

    /// The set-based run of `mapping`, or `nil` when it must run row by row.
    init?(pass: MappingPass, mapping: EntityMapping, index: Int) {
        guard case .setBased(let sql) = InstanceInsertSQL.compile(manager: pass.manager, mapping: mapping, index: index)
        else { return nil }
        self.pass = pass
        self.sql = sql
    }

    /// The identity of this mapping's associations when numbering its destination instances in
    /// creation order would give each exactly its source key: no filter, and the source keys of
    /// the entity run without a gap from the destination's next free key. Then the mapping writes
    /// no association rows and its inserts copy `Z_PK` — the same store, less work.
    func keyIdentity() throws -> AssociationTable.Identity? {
        guard sql.filter == nil, let destinationName = mapping.destinationEntity,
            let (count, low, high) = try sourceKeySpan()
        else { return nil }
        // A damaged store's keys can span more than Int64 holds (negative to Int64.max).
        let (span, overflow) = high.subtractingReportingOverflow(low)
        guard !overflow, span < .max, span + 1 == count, try low == pass.stores.writer.nextKey(for: destinationName)
        else { return nil }
        return AssociationTable.Identity(
            sourceTable: sql.sourceTableName, sourceEntity: sql.sourceNumber, destinationEntity: sql.destinationNumber,
            keys: low...high)
    }

    /// How many instances of the source entity there are, and their lowest and highest keys.
    /// When they are all the table holds (its row count is the entity's, known from the step's
    /// count), the b-tree answers each at once; otherwise one scan does.
    private func sourceKeySpan() throws -> (count: Int64, low: Int64, high: Int64)? {
        let connection = pass.stores.connection, table = sql.sourceTable
        if let entity = mapping.sourceEntity, let known = pass.sourceRowCounts?[entity],
            try connection.integer(SQLStatement("SELECT count(*) FROM \(table)")) == Int64(known)
        {
            guard known > 0, let low = try connection.integer(SQLStatement("SELECT min(Z_PK) FROM \(table)")),
                let high = try connection.integer(SQLStatement("SELECT max(Z_PK) FROM \(table)"))
            else { return nil }
            return (Int64(known), low, high)
        }
        guard
            let span = try connection.row(
                SQLStatement(
                    "SELECT count(*), min(Z_PK), max(Z_PK) FROM \(table) WHERE Z_ENT = ?", [SQLValue(sql.sourceNumber)])
            ),
            let count = span[0].integer, let low = span[1].integer, let high = span[2].integer
        else { return nil }
        return (count, low, high)
    }

    /// Moves the source rows with `Z_PK` from `from` on, up to `limit` of them; returns how many
    /// source rows the chunk covered and the last `Z_PK`. The bound is inclusive so that the
    /// first chunk can start at `Int64.min`: a damaged or foreign store's keys may be zero or
    /// negative, and a row is never left behind for its key.
    func moveChunk(from: Int64, limit: Int) throws -> (rows: Int, last: Int64) {
        let identity = pass.stores.associations.identity(of: mappingIndex)
        guard let (rows, last) = try chunk(from: from, limit: limit, keptKeys: identity) else { return (0, from) }
        let bounds: [String: SQLValue] = ["from": .integer(from), "last": .integer(last)]
        // Every row of a kept-keys chunk matches; otherwise the filter decides.
        let matching =
            identity != nil ? rows : Int(try pass.stores.connection.integer(sql.matchingRows.binding(bounds)) ?? 0)
        guard matching > 0, let destinationName = mapping.destinationEntity else { return (rows, last) }
        let keys = try pass.stores.writer.reserveKeys(for: destinationName, count: matching)
        let reserved = keys.first...(keys.first + Int64(matching) - 1)
        if identity != nil {
            // The chunk's source keys are the keys just reserved.
            guard keys.first == last - Int64(matching) + 1 else {
                throw MigrationError(
                    .verification,
                    """
                    \(mapping.name): destination keys \(keys.first)… do not follow source keys \
                    \(last - Int64(matching) + 1)…\(last)
                    """,
                    fix: "the source is untouched; report this with the mapping model")
            }
            try pass.stores.connection.execute(sql.keptKeysInsert(pass.stores.associations).binding(bounds))
        } else {
            let keyBounds = bounds.merging([
                "first_key": .integer(reserved.lowerBound), "last_key": .integer(reserved.upperBound),
            ]) { a, _ in a }
            try pass.stores.connection.execute(
                sql.renumberedInserts(pass.stores.associations).map { $0.binding(keyBounds) })
        }
        try reportPairs(reserved, destination: destinationName)
        return (rows, last)
    }

    /// The chunk from `from` on: how many source rows, and the last key. With kept keys the chunk
    /// is the next keys of the range (dense, no filter, from the destination's next key, so at
    /// least 1: see ``keyIdentity()``); otherwise the next `limit` rows of the entity.
    private func chunk(from: Int64, limit: Int, keptKeys identity: AssociationTable.Identity?) throws -> (
        rows: Int, last: Int64
    )? {
        if let identity {
            let first = max(from, identity.keys.lowerBound)
            let last = min(first + Int64(limit) - 1, identity.keys.upperBound)
            return last >= first ? (Int(last - first + 1), last) : nil
        }
        guard
            let range = try pass.stores.connection.row(
                SQLStatement(
                    """
                    SELECT count(*), max(Z_PK) FROM (SELECT Z_PK FROM \(sql.sourceTable) WHERE Z_ENT = ? AND Z_PK \
                    >= ? ORDER BY Z_PK LIMIT ?)
                    """,
                    [SQLValue(sql.sourceNumber), .integer(from), SQLValue(limit)])),
            let end = range[1].integer
        else { return nil }
        return (Int(range[0].integer ?? 0), end)
    }

    /// A custom manager's association hook still sees every pair, after the set-based insert.
    private func reportPairs(_ keys: ClosedRange<Int64>, destination: String) throws {
        guard let hook = manager.didAssociate, manager.didAssociateEntities.map({ $0.contains(destination) }) ?? true
        else { return }
        let pairs = try pass.stores.connection.rows(
            SQLStatement(
                """
                SELECT source_entity, source_pk, destination_entity, destination_pk FROM \(pass.stores.associations.relation(mappingIndex))
                WHERE mapping = ? AND destination_pk BETWEEN ? AND ? ORDER BY destination_pk
                """, [SQLValue(mappingIndex), .integer(keys.lowerBound), .integer(keys.upperBound)]))
        for pair in pairs {
            try hook(
                manager, ObjectID(entityNumber: Int(pair[0].integer ?? 0), primaryKey: pair[1].integer ?? 0),
                ObjectID(entityNumber: Int(pair[2].integer ?? 0), primaryKey: pair[3].integer ?? 0), mapping)
        }
    }
}
