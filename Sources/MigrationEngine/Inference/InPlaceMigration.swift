import Foundation
import ObjectModel
import SQLiteStore

/// Runs an inferred step with SQL on the store itself, in one write transaction: `ALTER TABLE`
/// (add/rename/drop column, rename table) where a table's storage stays, SQLite's rebuild (new
/// table, copy, drop, rename) where it does not. SQLite's own journal makes that all-or-nothing —
/// a crash or an error before the commit leaves the store as it was — so a schema change costs
/// milliseconds at any size and a rebuild what the hand-written SQL costs. The schema is verified
/// before the commit, and row counts too whenever a row could have been touched or copied.
///
/// Rebuilds once ran on a copy of the store that was integrity-checked and swapped in: the copy,
/// the whole-file check and the swap made them cost a multiple of their hand-written SQL, for
/// no more safety than the transaction gives. The rebuild scenarios (`chrysalis-bench --scenario
/// rebuild-type`, `rebuild-to-many`, `rebuild-ordered`) hold a rebuild to its SQL's time.
package enum InPlaceMigration {
    /// Migrates the store at `path` from `source` to `destination` by inference, as `context`'s step.
    static func run(
        store path: String, from source: ModelBundle.Version, to destination: ModelBundle.Version,
        context: StepContext
    ) throws -> MigrationReport {
        let step = try InferredStep(store: path, from: source, to: destination, context: context)
        return try step.start.holdingLock { try step.alterInPlace() }
    }
}

/// One inferred step while it runs: prepared (locked, the store's version checked, both layouts
/// known), then run and verified in one transaction.
private struct InferredStep {
    let path: String
    let source: ModelBundle.Version, destination: ModelBundle.Version
    let context: StepContext
    let started = Date()
    /// The lock, the version check, the room, the backup and the failure's words.
    let start: StepStart
    let inference: InferredMapping
    let layouts: (source: StoreLayout, destination: StoreLayout)
    let metadata: StoreMetadata
    /// The counts the step before verified, when nothing has touched the store's files since.
    let verifiedRows: [String: Int]?
    /// Whether a row could change (an entity dropped or renumbered) or is copied (an entity's
    /// table rebuilt): then rows are counted.
    let countsRows: Bool
    /// Tables no statement of the step adds rows to or deletes rows from: counted before the step,
    /// not again after it.
    let tablesKeepingRows: Set<String>
    /// Rebuilt tables whose copy's inserted rows stand in for a count after the step.
    let tablesCopiedWhole: Set<String>
    /// Whether a statement rewrites rows (an `UPDATE`, a `DELETE`): the journal may then hold a whole table.
    let rewritesRows: Bool
    /// Only `ALTER`s: no table is rebuilt.
    let altersOnly: Bool
    /// The destination's tables and join tables (the change's progress unit).
    let tables: Int
    /// The change's statements with their expected cost, on the store as it is before the step
    /// (the step works them out again under its lock): how much of the step's bar they fill.
    let expected: LightweightMigration.Work
    /// The store opened to read, until the step starts changing it.
    private let original: PersistentStore

    /// Prepares the step: the lock, a crashed step's leftovers undone, the inference, the store's
    /// version checked, its layout read.
    init(
        store path: String, from source: ModelBundle.Version, to destination: ModelBundle.Version, context: StepContext
    ) throws {
        (self.path, self.source, self.destination, self.context) = (path, source, destination, context)
        start = try StepStart(store: path, step: "\(source.name) → \(destination.name)", context: context)
        inference = InferredMapping(from: source, to: destination)
        guard inference.isInferable else { throw inference.notInferableError }
        // Before this process opens the store: the counts the step before verified still hold
        // only if nothing has touched the store's files since.
        verifiedRows = context.verifiedRows?.rows(matching: OtherWriters.Fingerprint(store: path), model: source.model)
        original = try PersistentStore.open(at: path)
        metadata = try original.metadata()
        try start.requireVersion(source, metadata: metadata)
        layouts = (try original.layout(for: source.model), StoreLayout(model: destination.model))
        let sql = LightweightSQL(inference: inference, source: layouts.source, destination: layouts.destination)
        let methods = sql.tableMethods()
        altersOnly = !methods.values.contains(.rebuilt)
        countsRows = sql.copiesObjects(methods: methods) || !sql.preservesRows()
        tablesKeepingRows = sql.tablesKeepingRows(methods: methods)
        tablesCopiedWhole = sql.tablesCopiedWhole(methods: methods)
        rewritesRows = sql.rewritesRows(methods: methods)
        tables = methods.count
        let (inference, layouts) = (inference, layouts)
        expected = try original.withReadConnection { connection in
            try LightweightMigration(
                connection: connection, inference: inference, source: layouts.source, destination: layouts.destination,
                path: path
            )
            .plannedWork()
        }
    }

    // MARK: In place

    /// The in-place path: one write transaction on the store itself (see ``InPlaceMigration``).
    func alterInPlace() throws -> MigrationReport {
        try original.close()
        let rows = verifiedRows?.values.reduce(0, +) ?? expected.modelRows
        var progress = InPlaceProgress(
            rows: rows, bytes: StoreFiles.bytes(of: path), countsRows: countsRows, change: expected.total,
            tables: tables,
            keepsBackup: context.keepsBackup, target: context.progress, pass: "\(start.name) (lightweight, in place)")
        let space = SpaceCheck(
            .alterInPlace(backup: context.keepsBackup, rewritesRows: rewritesRows, rebuilds: !altersOnly), store: path)
        // Name another writer now, rather than time out inside the transaction below.
        try start.requireRoom(space)
        let (counts, backup) = try start.inPlace(space) {
            progress.copying()
            let backup =
                context.keepsBackup
                ? try StoreSwap.copyAside(store: path, backup: context.backupPath) { progress.copied(bytes: $0) } : nil
            progress.changing()
            return backup
        } change: {
            try context.cancellation.check()
            let store = try PersistentStore.open(at: path, mode: .readWrite)
            let counts = try store.withConnection { connection in
                var counts = Counts()
                try connection.inTransaction(.immediate) {
                    counts = try alterUnderLock(connection, store: store, progress: &progress)
                }
                return counts
            }
            try store.close()
            return counts
        }
        progress.finish()
        var report = MigrationReport(
            store: path, backup: backup, sourceVersion: source.name, destinationVersion: destination.name,
            passes: ["inferred, in place"], rowsBefore: counts.before, rowsAfter: counts.after,
            duration: Date().timeIntervalSince(started))
        report.contents = counts.contents
        return report
    }

    /// What the transaction counted: rows per entity before and after, and what it commits.
    private struct Counts {
        var before: [String: Int] = [:], after: [String: Int] = [:]
        var contents: ContentSummary?
    }

    /// The step inside the write transaction: the store checked again, the rows to verify against
    /// counted, the statements run, the result verified. Returns the counts before and after.
    private func alterUnderLock(_ connection: StoreConnection, store: PersistentStore, progress: inout InPlaceProgress)
        throws -> Counts
    {
        // Read again under the write lock: nothing can have changed the store since.
        guard try connection.metadata().versionHashes == metadata.versionHashes else {
            throw MigrationError(
                .wrongModel, "\(path) changed while the migration was starting", fix: "run the migration again")
        }
        try OtherWriters.requireUnchanged(connection, since: context.contentsBefore, store: path)
        // The counts to verify against: the step before's, or counted on a second connection
        // while the statements run (a WAL store), or counted here first.
        var rowsBefore: [String: Int] = [:], rowsAfter: [String: Int] = [:]
        var counting: SnapshotRowCounts?
        defer { _ = try? counting?.wait() }  // the reader lets go of the store before the step ends
        if countsRows {
            // The entities it removes are counted too, so that the result says what was dropped, with its rows.
            let origins = Set(inference.entitySources.values).union(inference.removedEntities)
            if let verified = verifiedRows?.filter({ origins.contains($0.key) }) {
                rowsBefore = verified
            } else {
                counting = try SnapshotRowCounts.start(beside: store, model: source.model, entities: origins)
                if counting == nil {
                    rowsBefore = try InferredStepChecks.counts(
                        connection, layout: layouts.source, entities: Array(origins))
                }
            }
        }
        let copied = try LightweightMigration(
            connection: connection, inference: inference, source: layouts.source, destination: layouts.destination,
            path: path
        )
        .run(metadata: metadata) { progress.changed(share: $0) }
        if let counting { rowsBefore = try counting.wait() }
        try context.cancellation.check()
        progress.verifying(rows: rowsBefore.values.reduce(0, +))
        try InferredStepChecks.verifySchema(connection, layout: layouts.destination, path: path)
        if countsRows {
            rowsAfter = try InferredStepChecks.verifyCounts(
                connection, inference: inference, layout: layouts.destination, rowsBefore: rowsBefore,
                tablesKeepingRows: tablesKeepingRows,
                rowsCopied: copied.filter { tablesCopiedWhole.contains($0.key) })
        }
        try context.cancellation.check()  // the last moment to change one's mind
        progress.verified()
        return Counts(
            before: rowsBefore, after: rowsAfter,
            contents: context.summarizesContents ? try connection.contentSummary() : nil)
    }
}
