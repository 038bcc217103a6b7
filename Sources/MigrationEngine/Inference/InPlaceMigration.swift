import Foundation
import GRDB
import ObjectModel
import SQLiteStore

/// Runs an inferred step with SQL, in one transaction, in one of two ways:
///
/// - **In place**, when every table is only altered (`ALTER TABLE` add/rename/drop column, rename
///   table): the statements run on the store itself inside one write transaction. SQLite's own
///   journal makes that all-or-nothing — a crash or an error before the commit leaves the store
///   as it was — so the cost is the schema change, not the size of the store. The schema is
///   verified before the commit, and row counts too whenever a row could have been touched.
/// - **On a copy**, when a table must be rebuilt: the step runs on a copy beside the store, which
///   is integrity-checked, reconciled and swapped in, so the source is never written.
public enum InPlaceMigration {
    /// Migrates the store at `path` from `source` to `destination` by inference.
    public static func run(store path: String, from source: ModelBundle.Version, to destination: ModelBundle.Version,
                           options: MigrationOptions = MigrationOptions()) throws -> MigrationReport {
        let started = Date()
        let lock = options.lockHeld ? nil : try StoreLock(store: path)
        defer { withExtendedLifetime(lock) {} }
        if lock != nil { try StoreSwap.recover(store: path) }
        let inference = InferredMapping(from: source, to: destination)
        guard inference.isInferable else { throw inference.notInferableError }
        let paths = StoreSwap.Paths(store: path)
        // Before this process opens the store: the counts the step before verified still hold
        // only if nothing has touched the store's files since.
        let verifiedRows = options.verifiedRows?.rows(matching: OtherWriters.Fingerprint(store: path), model: source.model)
        let original = try PersistentStore.open(at: path)
        let metadata = try original.metadata()
        guard source.entityHashes == metadata.versionHashes else {
            throw MigrationError(.wrongModel, "\(path) is not at version \(source.name)", fix: "run `chrysalis inspect` to see which version it is at")
        }
        let sourceLayout = try original.layout(for: source.model)
        let destinationLayout = StoreLayout(model: destination.model)
        let methods = LightweightMigration.tableMethods(inference: inference, source: sourceLayout, destination: destinationLayout)
        if !methods.values.contains(.rebuilt) {
            try original.close()
            return try alterInPlace(store: path, step: (source, destination), inference: inference, layouts: (sourceLayout, destinationLayout),
                                    metadata: metadata, verifiedRows: verifiedRows, options: options, started: started, tables: methods.count)
        }
        let rowsBefore = try verifiedRows ?? original.rowCounts(model: source.model)
        let stepName = "\(source.name) → \(destination.name)"
        let space = SpaceCheck(.rebuildCopy(largestTable: original.largestTableBytes()), store: path)
        try original.close()
        try space.require(store: path, step: stepName)
        let permissions = try FilePermissions(of: path)
        try OtherWriters.waitUntilNone(store: path)
        let fingerprint = OtherWriters.Fingerprint(store: path)
        let rows = rowsBefore.values.reduce(0, +), bytes = InPlaceProgress.bytes(of: path)
        let progress = ProgressReporter(budget: StageCost.inferredStep(rows: rows, bytes: bytes, backup: true, rebuilds: true, countsRows: true), options: options)
        progress.begin(stage: .backup, pass: "\(source.name) → \(destination.name) (lightweight, on a copy)", step: options.step, mapping: nil,
                       index: 0, count: 0, rowsTotal: max(bytes >> 20, 1), unit: .megabytes)
        do {
            try options.cancellation.check()
            for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: path + suffix) {
                try permissions.copy(path + suffix, to: paths.newStore + suffix)
            }
            progress.begin(stage: .inPlace, mapping: nil, index: 0, count: 0, rowsTotal: methods.count, unit: .tables)
            let copy = try PersistentStore.open(at: paths.newStore, mode: .readWrite)
            var rowsAfter: [String: Int] = [:]
            try copy.withConnection { db in
                try db.inTransaction {
                    try LightweightMigration(db: db, inference: inference, source: sourceLayout, destination: destinationLayout, path: path).run(metadata: metadata)
                    progress.advance(units: methods.count)
                    try options.cancellation.check()
                    progress.begin(stage: .verify, mapping: nil, index: 0, count: 0, rowsTotal: rows)
                    try verifySchema(db, layout: destinationLayout, path: path)
                    rowsAfter = try verify(db, inference: inference, layout: destinationLayout, rowsBefore: rowsBefore)
                    progress.advance(units: rows, rows: rows)
                    return .commit
                }
                _ = try Row.fetchAll(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            }
            try copy.close()
            progress.begin(stage: .swap, mapping: nil, index: 0, count: 0, rowsTotal: 1, unit: .files)
            try fingerprint.requireUnchanged(store: path)
            let backup: String?
            if options.replacesSource { try StoreSwap.replace(paths); backup = nil } else { backup = try StoreSwap.swap(paths, backup: options.backupPath) }
            progress.finish()
            return MigrationReport(store: path, backup: backup, sourceVersion: source.name, destinationVersion: destination.name,
                                   passes: ["inferred"], rowsBefore: rowsBefore, rowsAfter: rowsAfter, duration: Date().timeIntervalSince(started))
        } catch {
            for suffix in [""] + StoreSwap.sidecars { unlink(paths.newStore + suffix) }
            throw paths.describing(space.explain(error, store: path, step: stepName))
        }
    }

    /// The in-place path: one write transaction on the store itself (see the type's comment).
    private static func alterInPlace(store path: String, step: (source: ModelBundle.Version, destination: ModelBundle.Version),
                                     inference: InferredMapping, layouts: (source: StoreLayout, destination: StoreLayout),
                                     metadata: StoreMetadata, verifiedRows: [String: Int]?, options: MigrationOptions,
                                     started: Date, tables: Int) throws -> MigrationReport {
        let countsRows = !LightweightMigration.preservesRows(inference: inference, source: layouts.source, destination: layouts.destination)
        let rows = verifiedRows?.values.reduce(0, +) ?? InPlaceProgress.bytes(of: path) / StageCost.bytesPerRow
        var progress = InPlaceProgress(rows: rows, countsRows: countsRows, tables: tables, options: options,
                                       pass: "\(step.source.name) → \(step.destination.name) (lightweight, in place)")
        let stepName = "\(step.source.name) → \(step.destination.name)"
        let space = SpaceCheck(.alterInPlace(backup: options.keepsBackup), store: path)
        try space.require(store: path, step: stepName)
        // Name another writer now, rather than time out inside the transaction below.
        try OtherWriters.waitUntilNone(store: path)
        progress.copying()
        let backup = options.keepsBackup ? try StoreSwap.copyAside(store: path, backup: options.backupPath) : nil
        progress.changing()
        var rowsBefore: [String: Int] = [:], rowsAfter: [String: Int] = [:]
        do {
            try options.cancellation.check()
            let store = try PersistentStore.open(at: path, mode: .readWrite)
            try store.withConnection { db in
                try db.inTransaction(.immediate) {
                    // Read again under the write lock: nothing can have changed the store since.
                    let plist = try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1") ?? Data()
                    guard try StoreMetadata.decode(plist: plist, uuid: metadata.uuid, path: path).versionHashes == metadata.versionHashes else {
                        throw MigrationError(.wrongModel, "\(path) changed while the migration was starting", fix: "run the migration again")
                    }
                    // The counts to verify against: the step before's, or counted on a second
                    // connection while the statements run (a WAL store), or counted here first.
                    var counting: SnapshotRowCounts?
                    defer { _ = try? counting?.wait() }  // the reader lets go of the store before the step ends
                    if countsRows {
                        let origins = Set(inference.entitySources.values)
                        if let verified = verifiedRows?.filter({ origins.contains($0.key) }) {
                            rowsBefore = verified
                        } else {
                            counting = try SnapshotRowCounts.start(beside: store, model: step.source.model, entities: origins)
                            if counting == nil { rowsBefore = try counts(db, layout: layouts.source, entities: Array(origins)) }
                        }
                    }
                    try LightweightMigration(db: db, inference: inference, source: layouts.source, destination: layouts.destination, path: path)
                        .run(metadata: metadata)
                    if let counting { rowsBefore = try counting.wait() }
                    try options.cancellation.check()
                    progress.verifying(rows: rowsBefore.values.reduce(0, +))
                    try verifySchema(db, layout: layouts.destination, path: path)
                    if countsRows { rowsAfter = try verifyCounts(db, inference: inference, layout: layouts.destination, rowsBefore: rowsBefore) }
                    try options.cancellation.check()  // the last moment to change one's mind
                    progress.verified()
                    return .commit
                }
            }
            try store.close()
        } catch {
            if let backup { for suffix in [""] + StoreSwap.sidecars { unlink(backup + suffix) } }
            throw StoreSwap.Paths(store: path).describing(space.explain(error, store: path, step: stepName))
        }
        progress.finish()
        return MigrationReport(store: path, backup: backup, sourceVersion: step.source.name, destinationVersion: step.destination.name,
                               passes: ["inferred, in place"], rowsBefore: rowsBefore, rowsAfter: rowsAfter,
                               duration: Date().timeIntervalSince(started))
    }

    /// Rows per concrete entity, read inside the step's transaction.
    private static func counts(_ db: Database, layout: StoreLayout, entities: [String]) throws -> [String: Int] {
        let reader = ObjectReader(db: db, layout: layout, path: "")
        var result: [String: Int] = [:]
        for entity in entities { result[entity] = try reader.count(of: entity, includingSubentities: false) }
        return result
    }

    /// Every destination table and join table has exactly the columns (names and types, in any order) a fresh
    /// store of the destination model has, and every Core Data index exists.
    static func verifySchema(_ db: Database, layout: StoreLayout, path: String) throws {
        let expected = layout.tables.map { table in (table.name, [("Z_PK", "INTEGER"), ("Z_ENT", "INTEGER"), ("Z_OPT", "INTEGER")] + table.columns.map { ($0.name, $0.sqlType) }) }
            + layout.joinTables.map { join in (join.name, join.columns.map { ($0, "INTEGER") }) }
        for (table, columns) in expected {
            let found = try Row.fetchAll(db, sql: "SELECT name, type FROM pragma_table_info(?)", arguments: [table]).map { ($0[0] as String, $0[1] as String) }
            // `ADD COLUMN` appends, so the order may differ from a fresh store's; rows are read by name.
            let matches = found.count == columns.count
                && Set(found.map { "\($0.0) \($0.1.uppercased())" }) == Set(columns.map { "\($0.0) \($0.1.uppercased())" })
            guard matches else {
                throw MigrationError(.verification, "\(path): after the step, table \(table) has columns \(found.map { "\($0.0) \($0.1)" }.joined(separator: ", ")) but the destination model needs \(columns.map { "\($0.0) \($0.1)" }.joined(separator: ", "))",
                                     fix: "the store is unchanged (the step rolled back); report this with both model versions")
            }
        }
        let indexes = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index'"))
        if let missing = StoreSchema(layout: layout).indexes.first(where: { !indexes.contains($0.name) }) {
            throw MigrationError(.verification, "\(path): after the step, index \(missing.name) on \(missing.table) is missing",
                                 fix: "the store is unchanged (the step rolled back); report this with both model versions")
        }
    }

    /// Sound, and every surviving entity has exactly the rows it had; returns the rows of every
    /// destination entity, counted in the step's transaction (so the copy is not read again).
    private static func verify(_ db: Database, inference: InferredMapping, layout: StoreLayout, rowsBefore: [String: Int]) throws -> [String: Int] {
        let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
        guard integrity == ["ok"] else {
            throw MigrationError(.verification, "the migrated store failed SQLite's integrity check: \(integrity.prefix(3).joined(separator: "; "))")
        }
        let survivors = try verifyCounts(db, inference: inference, layout: layout, rowsBefore: rowsBefore)
        // Entities no source maps to start empty; counted all the same, in the same transaction.
        let others = layout.model.entities.map(\.name).filter { survivors[$0] == nil }
        return survivors.merging(try counts(db, layout: layout, entities: others)) { verified, _ in verified }
    }

    /// Every surviving entity has exactly the rows it had; returns those counts.
    @discardableResult
    private static func verifyCounts(_ db: Database, inference: InferredMapping, layout: StoreLayout, rowsBefore: [String: Int]) throws -> [String: Int] {
        let after = try counts(db, layout: layout, entities: Array(inference.entitySources.keys))
        for (entity, origin) in inference.entitySources {
            let count = after[entity, default: 0]
            guard count == rowsBefore[origin, default: 0] else {
                throw MigrationError(.verification, "\(entity) has \(count) rows after the migration but \(origin) had \(rowsBefore[origin, default: 0])",
                                     fix: "the source is untouched; report this with both model versions")
            }
        }
        return after
    }
}
