import Foundation
import ObjectModel
import SQLiteStore

/// Runs a ``MigrationPlan`` step by step under one lock: lightweight steps in place, mapping
/// steps through the manager. The original store is kept as `Name~.ext`; the intermediate
/// versions a long chain passes through are not kept.
public enum MigrationRunner {
    /// What a whole plan did.
    public struct Report: Sendable {
        /// Each step's report, in order.
        public var steps: [MigrationReport]
        /// The original store's backup, unless backups were turned off.
        public var backup: String?

        /// Rows per entity before the plan, from the first step that counted them (a schema-only
        /// in-place step counts nothing because it keeps every row); empty if none did.
        public var rowsBefore: [String: Int] { steps.first { !$0.rowsBefore.isEmpty }?.rowsBefore ?? [:] }
        /// Rows per entity after the plan, from the last step that counted them.
        public var rowsAfter: [String: Int] { steps.last { !$0.rowsAfter.isEmpty }?.rowsAfter ?? [:] }
    }

    /// Runs `plan` on the store at `path`.
    public static func run(_ plan: MigrationPlan, store path: String, options: MigrationOptions = MigrationOptions(),
                           keepBackup: Bool = true) throws -> Report {
        let lock = try StoreLock(store: path)
        defer { withExtendedLifetime(lock) {} }
        try StoreSwap.recover(store: path)
        var reports: [MigrationReport] = []
        var originalBackup: String?
        var verifiedRows: VerifiedRowCounts?
        for (index, step) in plan.steps.enumerated() {
            var stepOptions = options
            stepOptions.step = index + 1
            stepOptions.stepCount = plan.steps.count
            stepOptions.lockHeld = true
            stepOptions.keepsBackup = index == 0 && keepBackup
            stepOptions.verifiedRows = verifiedRows
            let report: MigrationReport
            switch step.kind {
            case .lightweight:
                report = try InPlaceMigration.run(store: path, from: step.source, to: step.destination, options: stepOptions)
            case .mapping(let mappings):
                report = try MappingMigration.run(store: path, from: step.source, to: step.destination, mappings: mappings, options: stepOptions)
            }
            if index == 0 {
                originalBackup = report.backup
            } else if let backup = report.backup {
                for suffix in [""] + StoreSwap.sidecars { unlink(backup + suffix) }
            }
            reports.append(report)
            verifiedRows = VerifiedRowCounts(after: report, store: path)
        }
        if !keepBackup, let backup = originalBackup {
            for suffix in [""] + StoreSwap.sidecars { unlink(backup + suffix) }
            originalBackup = nil
        }
        return Report(steps: reports, backup: originalBackup)
    }
}

/// Core Data's "migrate automatically, infer the mapping" options as one call: open a store for
/// the bundle's current version, migrating it first when it is at an older one.
public enum AutomaticMigration {
    /// Opens the store at `path` for writing, migrated to `bundle`'s current version.
    public static func openStore(at path: String, bundle: ModelBundle, mappings: [MappingModel] = [],
                                 options: MigrationOptions = MigrationOptions()) throws -> PersistentStore {
        let plan = try MigrationPlan.make(store: path, bundle: bundle, mappings: mappings)
        if !plan.steps.isEmpty { _ = try MigrationRunner.run(plan, store: path, options: options) }
        return try PersistentStore.open(at: path, mode: .readWrite)
    }
}
