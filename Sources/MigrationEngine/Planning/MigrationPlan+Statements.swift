import ObjectModel
import SQLiteStore

extension MigrationPlan {
    /// The SQL each step of the plan will run on the store at `path`, compiled by the very types
    /// the migration runs (``LightweightSQL``, ``InstanceInsertSQL``, ``SetBasedRelationships``),
    /// and the parts that run row by row in Swift instead (custom policies, expressions that do
    /// not compile). Reads the store and writes nothing: the first step's tables, columns,
    /// indexes and triggers are read from it; later steps work on stores Chrysalis makes, laid
    /// out as Core Data lays out a new store.
    ///
    /// `options` supplies what a run would: the registered policies and the manager hook, whose
    /// values set on association compile into the same inserts.
    ///
    /// ```swift
    /// let plan = try MigrationPlan.make(store: path, bundle: bundle)
    /// for step in try plan.statements(store: path) {
    ///     for part in step.parts { print(part.title, part.statements.map(\.description)) }
    /// }
    /// ```
    package func statements(store path: String, options: MigrationOptions = MigrationOptions()) throws
        -> [StepStatements]
    {
        let store = try PersistentStore.open(at: PlanJournal.pendingOriginal(store: path) ?? path)
        defer { try? store.close() }
        let first = try steps.first.map { try store.layout(for: $0.source.model) }
        return try store.withReadConnection { connection in
            try steps.enumerated().map { index, step in
                let source =
                    index == 0 ? first ?? StoreLayout(model: step.source.model) : StoreLayout(model: step.source.model)
                let destination = StoreLayout(model: step.destination.model)
                return try step.kind.work.statements(
                    step, first: index == 0, on: connection, store: store, layouts: (source, destination),
                    options: options)
            }
        }
    }
}
