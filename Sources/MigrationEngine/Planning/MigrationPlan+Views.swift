import ObjectModel
import SQLiteStore

extension MigrationPlan {
    /// Refuses a plan whose inferred steps would stop at an app's view: one over a column a step
    /// drops, or over a table it renames, cannot be made again after the step, which rolls back
    /// (after the steps before it ran). The plan's leading inferred steps are rehearsed with
    /// their own statements on the store's schema without its rows (`SchemaRehearsal`), which
    /// costs milliseconds at any size; a store with no view of an app's is not rehearsed.
    ///
    /// - Parameter path: The store the plan was made for.
    /// - Throws: A `MigrationError` naming the view, the step and the fix; a `StoreError` when the
    ///   store cannot be read.
    public func requireViewsKept(store path: String) throws {
        guard let first = steps.first, case .lightweight = first.kind else { return }
        let store = try PersistentStore.open(at: PlanJournal.pendingOriginal(store: path) ?? path)
        defer { try? store.close() }
        guard let rehearsal = try SchemaRehearsal(of: store) else { return }
        let metadata = try store.metadata()
        var source = try store.layout(for: first.source.model)
        try rehearsal.withConnection { connection in
            for step in steps {
                guard case .lightweight(let inference) = step.kind else { return }
                let destination = StoreLayout(model: step.destination.model)
                let migration = LightweightMigration(
                    connection: connection, inference: inference, source: source, destination: destination, path: path)
                // Anything else the rehearsal meets is the step's to meet with the rows.
                guard let result = try? migration.apply(metadata: metadata) else { return }
                if let (object, reason) = result.broken.first {
                    throw migration.brokenObject(object, reason: reason, rolledBack: false)
                }
                source = destination
            }
        }
    }
}
