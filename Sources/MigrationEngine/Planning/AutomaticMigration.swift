import Foundation
import Logging
import ObjectModel
import SQLiteStore

/// Core Data's "migrate automatically, infer the mapping" options as one call: open a store for
/// the bundle's current version, migrating it first when it is at an older one. By Core Data's
/// automatic migration (``MigrationStrategy/automatic``) unless told another strategy: an app
/// that chains mapping models itself says so.
public enum AutomaticMigration {
    /// Opens the store at `path` for writing, migrated to `bundle`'s current version.
    ///
    /// - Parameters:
    ///   - path: The store file.
    ///   - bundle: The model bundle; the store is migrated to its current version.
    ///   - mappings: Mapping models for steps Core Data cannot infer.
    ///   - strategy: How the app migrates: Core Data's automatic migration unless told otherwise.
    ///   - options: How the migration runs.
    /// - Returns: The store, open for writing at the current version.
    /// - Throws: A `MigrationError` (its `state` says where the store stands once a run began), a
    ///   `StoreError` or a `ModelFileError` when the store cannot be planned, migrated or opened.
    public static func openStore(
        at path: String, bundle: ModelBundle, mappings: [MappingModel] = [], strategy: MigrationStrategy = .automatic,
        options: MigrationOptions = MigrationOptions()
    ) throws -> PersistentStore {
        try PersistentStore.recoverInterruptedTransaction(at: path)
        let plan = try MigrationPlan.make(store: path, bundle: bundle, mappings: mappings, strategy: strategy)
        if !plan.steps.isEmpty { _ = try MigrationRunner.run(plan, store: path, options: options) }
        return try PersistentStore.open(at: path, mode: .readWrite)
    }
}
