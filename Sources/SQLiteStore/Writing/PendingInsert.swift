internal import GRDB
import ObjectModel

/// An instance with its key handed out and its row not written yet.
///
/// A migration policy typically inserts an instance and then sets its to-ones one call at a time
/// (`insertDestination`, then `relateDestination` for each key): written at once, that is an
/// `INSERT` and then an `UPDATE` of the same row per key. Held back until something else needs
/// the store, those keys and values go into the one `INSERT` instead. The caller decides when it
/// must be written (``ObjectWriter/run(_:)``): before anything reads or writes its table.
package struct PendingInsert {
    /// The instance's ID, valid from the start: its key is handed out when it is prepared.
    package let id: ObjectID
    /// Its entity.
    package let entity: String
    /// Its table (the root entity's).
    package var table: String { shape.table }
    let shape: InsertShape
    var arguments: [SQLValue]
}

extension ObjectWriter {
    /// An instance of `entity` with attribute `values` (the model's defaults for the rest) and
    /// to-one keys `toOne`, its key handed out, ready for ``run(_:)``.
    package func prepareInsert(_ entity: String, _ values: [String: StoreValue] = [:], toOne: [String: ObjectID] = [:])
        throws -> PendingInsert
    {
        let shape = try insertShape(entity)
        // Every attribute column is bound: the given value, else the default, else NULL (a
        // column left out of an INSERT is NULL too; Core Data's tables have no DEFAULT clauses).
        var arguments = freshRow(shape.defaults)
        try bind(values, of: entity, into: &arguments, shape: shape)
        let key = try nextKey(root: shape.root, table: shape.table)
        arguments[0] = .integer(key)
        var pending = PendingInsert(
            id: ObjectID(entityNumber: shape.number, primaryKey: key), entity: entity, shape: shape,
            arguments: arguments)
        for (name, destination) in toOne { try setToOne(name, to: destination, in: &pending) }
        return pending
    }

    /// Sets the key of to-one `name` (one stored in the instance's own row) of the instance
    /// before it is written. Unlike ``relate(_:_:to:)`` it checks only that the row has the
    /// column: for a caller that knows `destination` is of the right entity (a migration's
    /// folded to-ones, read from the source's own keys).
    package func setToOne(_ name: String, to destination: ObjectID, in pending: inout PendingInsert) throws {
        guard let position = pending.shape.toOnePositions[name] else {
            throw StoreError(
                .unknownProperty, path: path, "entity \(pending.entity) has no to-one relationship \(name)",
                fix: "use one of: \(relationshipNames(of: pending.entity))")
        }
        pending.place(destination, at: position)
    }

    /// Writes the instance's row.
    package func run(_ pending: PendingInsert) throws {
        try writeQueuedInserts()
        try pending.shape.rows.run(pending.arguments, in: db)
    }

    /// Sets attribute `values` of the instance before it is written: what ``update(_:_:countsChange:)``
    /// without counting a change does to a written one.
    package func set(_ values: [String: StoreValue], in pending: inout PendingInsert) throws {
        try bind(values, of: pending.entity, into: &pending.arguments, shape: pending.shape)
    }

    /// Sets the to-one `name` of the instance to `destinations` (none or one) before it is
    /// written, as ``relate(_:_:to:)`` would afterwards; false, changing nothing, when that takes
    /// more than the instance's own row (a to-many, or a one-to-one, whose other side has a key too).
    package func relate(_ pending: inout PendingInsert, _ name: String, to destinations: [ObjectID]) throws -> Bool {
        let plan = try writePlan(pending.id, name)
        guard case .foreignKey = plan.storage, plan.inverseToOne == nil, destinations.count <= 1,
            let position = pending.shape.toOnePositions[name]
        else { return false }
        try requireDestinations(destinations, of: plan)
        pending.place(destinations.first, at: position)
        return true
    }
}

extension PendingInsert {
    /// Writes a to-one's key, and its destination's entity where the row keeps one, at `position`
    /// of the row; nil clears both.
    mutating func place(_ destination: ObjectID?, at position: (key: Int, entity: Int?)) {
        arguments[position.key] = destination.map { .integer($0.primaryKey) } ?? .null
        if let entity = position.entity { arguments[entity] = destination.map { SQLValue($0.entityNumber) } ?? .null }
    }
}
