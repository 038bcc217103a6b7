import Foundation
import Logging
import ObjectModel
import SQLiteStore

/// Core Data's "migrate automatically, infer the mapping" options as one call: open a store for
/// the bundle's current version, migrating it first when it is at an older one.
public enum AutomaticMigration {
    /// Opens the store at `path` for writing, migrated to `bundle`'s current version.
    public static func openStore(
        at path: String, bundle: ModelBundle, mappings: [MappingModel] = [],
        options: MigrationOptions = MigrationOptions()
    ) throws -> PersistentStore {
        try PersistentStore.recoverInterruptedTransaction(at: path)
        let plan = try MigrationPlan.make(store: path, bundle: bundle, mappings: mappings)
        if !plan.steps.isEmpty { _ = try MigrationRunner.run(plan, store: path, options: options) }
        return try PersistentStore.open(at: path, mode: .readWrite)
    }
}
