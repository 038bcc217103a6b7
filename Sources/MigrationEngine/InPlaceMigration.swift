import Foundation
import GRDB
import ObjectModel
import SQLiteStore

/// Runs an inferred step: the SQL changes happen in place, in one transaction, on a copy of the
/// store beside it; the copy is verified and swapped in like any migrated store, so the source
/// itself is never written and stays as the backup.
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
        let original = try PersistentStore.open(at: path)
        let metadata = try original.metadata()
        guard VersionHash.entityHashes(of: source.model) == metadata.versionHashes else {
            throw MigrationError(.wrongModel, "\(path) is not at version \(source.name)", fix: "run `chrysalis inspect` to see which version it is at")
        }
        let sourceLayout = try original.layout(for: source.model)
        let rowsBefore = try original.rowCounts(model: source.model)
        try original.close()
        let progress = ProgressReporter(total: destination.model.entities.count + 3, step: options.step, stepCount: options.stepCount)
        progress.begin(stage: .inPlace, pass: "\(source.name) → \(destination.name) (inferred)", step: options.step, mapping: nil,
                       index: 0, count: 0, rowsTotal: rowsBefore.values.reduce(0, +))
        do {
            try options.cancellation.check()
            for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: path + suffix) {
                try FileManager.default.copyItem(atPath: path + suffix, toPath: paths.newStore + suffix)
            }
            let copy = try PersistentStore.open(at: paths.newStore, mode: .readWrite)
            let destinationLayout = StoreLayout(model: destination.model)
            try copy.withConnection { db in
                try db.inTransaction {
                    try LightweightMigration(db: db, inference: inference, source: sourceLayout, destination: destinationLayout, path: path).run(metadata: metadata)
                    progress.advance(units: destination.model.entities.count, rows: rowsBefore.values.reduce(0, +))
                    try options.cancellation.check()
                    progress.begin(stage: .verify, mapping: nil, index: 0, count: 0, rowsTotal: 0)
                    try verify(db, inference: inference, layout: destinationLayout, rowsBefore: rowsBefore)
                    progress.advance(units: 1)
                    return .commit
                }
                _ = try Row.fetchAll(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            }
            let rowsAfter = try copy.rowCounts(model: destination.model)
            try copy.close()
            progress.begin(stage: .swap, mapping: nil, index: 0, count: 0, rowsTotal: 0)
            let backup = try StoreSwap.swap(paths)
            progress.finish()
            return MigrationReport(store: path, backup: backup, sourceVersion: source.name, destinationVersion: destination.name,
                                   passes: ["inferred"], rowsBefore: rowsBefore, rowsAfter: rowsAfter, duration: Date().timeIntervalSince(started))
        } catch {
            for suffix in [""] + StoreSwap.sidecars { unlink(paths.newStore + suffix) }
            throw error
        }
    }

    /// Sound, and every surviving entity has exactly the rows it had.
    private static func verify(_ db: Database, inference: InferredMapping, layout: StoreLayout, rowsBefore: [String: Int]) throws {
        let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
        guard integrity == ["ok"] else {
            throw MigrationError(.verification, "the migrated store failed SQLite's integrity check: \(integrity.prefix(3).joined(separator: "; "))")
        }
        let reader = ObjectReader(db: db, layout: layout, path: "")
        for (entity, origin) in inference.entitySources {
            let count = try reader.count(of: entity, includingSubentities: false)
            guard count == rowsBefore[origin, default: 0] else {
                throw MigrationError(.verification, "\(entity) has \(count) rows after the migration but \(origin) had \(rowsBefore[origin, default: 0])",
                                     fix: "the source is untouched; report this with both model versions")
            }
        }
    }
}
