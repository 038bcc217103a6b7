import Foundation
import ObjectModel
import SQLiteStore

/// Runs a staged migration's handler on the store, in one write transaction: the handler's
/// saved changes are committed when it returns, its unsaved ones discarded, and an error undoes
/// them all (the plan then puts the original back). The first step of a plan keeps the backup,
/// as an in-place step does.
enum HandlerMigration {
    static func run(_ step: StageHandlerStep, store path: String, context: StepContext) throws -> MigrationReport {
        let started = Date()
        let start = try StepStart(store: path, step: step.name, context: context)
        return try start.holdingLock {
            let layout = try storeLayout(step, start: start)
            let bytes = StoreFiles.bytes(of: path)
            let reporter = ProgressReporter(
                budget: StageCost.handlerStep(
                    rows: bytes / StageCost.bytesPerRow, bytes: bytes, backup: context.keepsBackup),
                target: context.progress)
            let space = SpaceCheck(.alterInPlace(backup: context.keepsBackup, rewritesRows: true), store: path)
            try start.requireRoom(space)
            let (outcome, backup) = try start.inPlace(space) {
                guard context.keepsBackup else { return nil }
                var megabytes = CopiedMegabytes(bytes: bytes, reporter: reporter)
                reporter.begin(
                    stage: .backup, pass: step.name, mapping: nil, index: 0, count: 0, rowsTotal: megabytes.total,
                    unit: .megabytes)
                let backup = try StoreSwap.copyAside(store: path, backup: context.backupPath) { megabytes.copied($0) }
                megabytes.complete()
                // The backup is whole (and noted in the plan's journal). Its marker goes now, not
                // after the handler as an in-place step's does: recovery takes a marked backup
                // whose hashes are the store's for a step that never committed, and a handler
                // keeps the store's hashes whether it committed or not.
                unlink(StoreSwap.backupMarker(for: path))
                return backup
            } change: {
                reporter.begin(stage: .handler, pass: step.name, mapping: nil, index: 0, count: 0, rowsTotal: 0)
                try context.cancellation.check()
                do {
                    return try runHandler(step, layout: layout, store: path, context: context, reporter: reporter)
                } catch {
                    throw Self.named(error, step)
                }
            }
            reporter.finish()
            var report = MigrationReport(
                store: path, backup: backup, sourceVersion: step.version.name, destinationVersion: step.version.name,
                passes: [outcome.summary(step)], rowsBefore: outcome.rowsBefore, rowsAfter: outcome.rowsAfter,
                duration: Date().timeIntervalSince(started))
            report.contents = outcome.contents
            return report
        }
    }

    /// Each concrete entity's own rows, counted in the handler's transaction: what the handler
    /// changed, in numbers (the staged demo's merge: 2,006 authors before, 389 after).
    private static func rows(_ connection: StoreConnection, layout: StoreLayout) throws -> [String: Int] {
        let reader = ObjectReader(connection: connection, layout: layout, path: connection.path)
        var rows: [String: Int] = [:]
        for entity in layout.model.entities where !entity.isAbstract {
            rows[entity.name] = try reader.count(of: entity.name, includingSubentities: false)
        }
        return rows
    }

    /// What the handler did: its saves, and the changes it left unsaved (discarded); and what
    /// its transaction commits, when the plan asks.
    private struct Outcome {
        var saves = 0, discarded = 0
        var contents: ContentSummary?
        /// Rows per entity before and after the handler, in its transaction.
        var rowsBefore: [String: Int] = [:], rowsAfter: [String: Int] = [:]

        func summary(_ step: StageHandlerStep) -> String {
            "\(step.name): \(saves) save\(saves == 1 ? "" : "s")"
                + (discarded == 0
                    ? ""
                    : """
                    ; \(discarded) unsaved change\(discarded == 1 ? "" : "s") discarded, as Core Data discards an \
                    unsaved context's
                    """)
        }
    }

    /// The store's layout at the step's version, which it must be at.
    private static func storeLayout(_ step: StageHandlerStep, start: StepStart) throws -> StoreLayout {
        let store = try PersistentStore.open(at: start.path)
        defer { try? store.close() }
        try start.requireVersion(step.version, metadata: try store.metadata(), why: ", where the \(step.name) runs")
        return try store.layout(for: step.version.model)
    }

    /// The handler, with its context, inside one immediate transaction.
    private static func runHandler(
        _ step: StageHandlerStep, layout: StoreLayout, store path: String, context: StepContext,
        reporter: ProgressReporter
    ) throws -> Outcome {
        let store = try PersistentStore.open(at: path, mode: .readWrite)
        defer { try? store.close() }
        var outcome = Outcome()
        try store.withConnection { connection in
            try connection.inTransaction(.immediate) {
                guard try connection.metadata().versionHashes == step.version.entityHashes else {
                    throw MigrationError(
                        .wrongModel, "\(path) changed while the \(step.name) was starting",
                        fix: "run the migration again")
                }
                try OtherWriters.requireUnchanged(connection, since: context.contentsBefore, store: path)
                let before = try rows(connection, layout: layout)
                let objects = try MigrationContext(
                    version: step.version.name, layout: layout, connection: connection, path: path)
                objects.changeObserver = { [cancellation = context.cancellation] in
                    reporter.advance(units: 1, rows: 1)
                    try cancellation.check()
                }
                try step.handler(objects)
                outcome = Outcome(saves: objects.saves, discarded: try objects.discardUnsaved())
                (outcome.rowsBefore, outcome.rowsAfter) = (before, try rows(connection, layout: layout))
                try context.cancellation.check()  // the last moment to change one's mind
                if context.summarizesContents { outcome.contents = try connection.contentSummary() }
            }
        }
        return outcome
    }

    /// A handler's error, saying which handler it came from.
    private static func named(_ error: Error, _ step: StageHandlerStep) -> Error {
        switch error {
        case var error as MigrationError where error.kind != .cancelled:
            error.message = "the \(step.name) failed: \(error.message)"
            return error
        case is MigrationError, is StoreError:
            return error
        default:
            return MigrationError(.validation, "the \(step.name) failed: \(error)", fix: "correct the handler")
        }
    }
}
