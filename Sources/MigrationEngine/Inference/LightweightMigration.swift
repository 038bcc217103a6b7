import Foundation
import ObjectModel
import SQLiteStore

/// An inferred step done in place with SQL, in one transaction, without loading a single object:
/// ``LightweightSQL``'s statements run on the store's connection, then the store records its
/// new model (`Z_PRIMARYKEY` in the destination's numbering, the destination's hashes in
/// `Z_METADATA`, no stale `Z_MODELCACHE`). The result has the layout a fresh store of the
/// destination model has.
struct LightweightMigration {
    let connection: StoreConnection
    let inference: InferredMapping
    let source: StoreLayout
    let destination: StoreLayout
    let path: String

    /// Runs the step inside the caller's transaction; `metadata` is the store's, carried over.
    /// `done` hears the share of the step's statements run so far (0…1), after each one, so the
    /// bar's table count moves as tables change rather than all at once at the end. Returns the
    /// rows each rebuilt table's copy inserted, by destination table.
    @discardableResult
    func run(metadata: StoreMetadata, done: (Double) -> Void = { _ in }) throws -> [String: Int] {
        let (copied, broken) = try apply(metadata: metadata, done: done)
        if let (object, reason) = broken.first { throw brokenObject(object, reason: reason, rolledBack: true) }
        done(1)
        return copied
    }

    /// The step's statements, run; returns the rows each rebuilt table's copy inserted, and the
    /// app's objects that could not be made again after them, each with SQLite's reason (a
    /// ``SchemaRehearsal`` runs the step this way to name them before the store is touched).
    func apply(metadata: StoreMetadata, done: (Double) -> Void = { _ in }) throws
        -> (copied: [String: Int], broken: [(object: SchemaObjects.Object, reason: String)])
    {
        try requireValues()
        // Nothing of an app's fires on the step's own writes, nor stops an ALTER TABLE.
        let modelTables = Set((source.tables.map(\.name) + source.joinTables.map(\.name)).map { $0.uppercased() })
        let setAside = try connection.setAsideAppObjects(modelTables: modelTables)
        let derivedKept = try setAsideDerivedTriggers()
        let work = try plannedWork()
        let statements = work.statements
        var spent = 0.0
        var copied: [String: Int] = [:]
        for (index, statement) in statements.changes.enumerated() {
            try connection.execute(statement)
            if let table = statements.copies[statement] { copied[table, default: 0] += connection.changes }
            spent += work.changes[index]
            done(spent / work.total)
        }
        var built = 0
        try connection.buildIndexes(statements.indexes) {
            spent += work.indexes[built]
            built += 1
            done(spent / work.total)
        }
        try connection.execute(statements.derived)
        try remake(derivedKept)
        try recordDestination(metadata)
        return (copied, try connection.restore(setAside))
    }

    /// An app's trigger or view the step cannot make again: what stops the step (rolled back)
    /// or, foreseen by `plan`, what would.
    func brokenObject(_ object: SchemaObjects.Object, reason: String, rolledBack: Bool) -> MigrationError {
        MigrationError(
            .store,
            """
            \(path): the \(object.type) \(object.name), not Core Data's, names what \(inference.sourceVersion) \
            → \(inference.destinationVersion) removes or renames (\(reason)), so it cannot be made again after the \
            step; \(rolledBack ? "the step rolled back" : "the step would stop there and roll back")
            """,
            fix:
                """
                drop or change the \(object.type) (`DROP \(object.type.uppercased()) \(object.name)`), keeping its \
                SQL to make again for the new model, then run the migration again: \(object.sql)
                """
        )
    }

    /// The step's statements on the store as it is now, each with its expected microseconds
    /// (``StatementWeights``), so that the bar and the ETA move with the work rather than one
    /// notch per statement; and the rows of the model's tables, by the same estimate.
    struct Work {
        let statements: LightweightSQL.Statements
        let changes: [Double], indexes: [Double], derived: Double
        /// Rows of the source model's tables (entities' and join tables).
        let modelRows: Int
        var total: Double { max(changes.reduce(0, +) + indexes.reduce(0, +) + derived, 1) }
    }

    /// The ``Work`` of the step on the store as it is now.
    func plannedWork() throws -> Work {
        let schema = try connection.schemaObjects()
        let statements = LightweightSQL(inference: inference, source: source, destination: destination).statements(
            schema: schema)
        // Each table's rows as far as its highest rowid tells: a lookup, not a count. A table
        // without rowids counts none.
        let rows = Dictionary(
            uniqueKeysWithValues: schema.tables.map { table in
                (
                    table,
                    Int(
                        (try? connection.integer(
                            SQLStatement("SELECT max(rowid) FROM main.\(SQLIdentifier.quote(table))"))) ?? 0)
                )
            })
        let weights = StatementWeights(rows: rows)
        let modelTables = Set((source.tables.map(\.name) + source.joinTables.map(\.name)).map { $0.uppercased() })
        return Work(
            statements: statements, changes: statements.changes.map(weights.weight),
            indexes: statements.indexes.map(weights.weight),
            derived: statements.derived.map(weights.weight).reduce(0, +),
            modelRows: rows.filter { modelTables.contains($0.key) }.values.reduce(0, +))
    }

    /// The triggers Core Data made for a derivation whose SQL Chrysalis does not write, where the
    /// step leaves that derivation as it was: dropped before the step's writes (nothing fires on
    /// them) and made again after, as the store had them.
    private func setAsideDerivedTriggers() throws -> [SchemaObjects.Object] {
        let kept = DerivedAttributeTriggers(layout: destination).unchangedUnwritten(
            from: DerivedAttributeTriggers(layout: source))
        guard !kept.isEmpty else { return [] }
        let triggers = try connection.schemaObjects().objects.filter { object in
            object.type == "trigger" && kept.contains { $0.owns(triggerNamed: object.name) }
        }
        for trigger in triggers {
            try connection.execute(SQLStatement("DROP TRIGGER main.\(SQLIdentifier.quote(trigger.name))"))
        }
        return triggers
    }

    /// Makes again the triggers ``setAsideDerivedTriggers()`` set aside.
    private func remake(_ triggers: [SchemaObjects.Object]) throws {
        for trigger in triggers {
            do {
                try connection.execute(SQLStatement(trigger.sql))
            } catch {
                throw MigrationError(
                    .store,
                    """
                    \(path): Core Data's trigger \(trigger.name) for a derived attribute names what \
                    \(inference.sourceVersion) → \(inference.destinationVersion) removes (\(error)), so it cannot \
                    be made again after the step; the step rolled back
                    """,
                    fix:
                        """
                        drop the trigger (`DROP TRIGGER \(trigger.name)`): the attribute's values then stay as the \
                        step leaves them until Core Data migrates the store and makes its triggers again
                        """
                )
            }
        }
    }

    /// Core Data checks the rows a required value is new to before it migrates (error 134110).
    private func requireValues() throws {
        guard !inference.requirements.isEmpty else { return }
        let unmet = try inference.unmetRequirements(
            reader: ObjectReader(connection: connection, layout: source, path: path))
        if !unmet.isEmpty { throw inference.unmetRequirementsError(unmet, store: path) }
    }

    /// The store's bookkeeping for the destination model: keys keep counting from where they
    /// were, under each entity's new number.
    private func recordDestination(_ metadata: StoreMetadata) throws {
        let origins = inference.entitySources.filter { source.numbering.number(of: $0.value) != nil }
        try connection.renumberPrimaryKeys(for: destination, carryingFrom: origins)
        var updated = metadata
        updated.setModel(destination.model)
        try connection.recordModel(updated)
    }
}
