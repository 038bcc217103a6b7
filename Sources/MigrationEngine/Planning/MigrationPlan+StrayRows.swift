import ObjectModel
import SQLiteStore

extension MigrationPlan {
    /// Refuses a plan with a mapping step when the store holds rows no entity owns (a `Z_ENT`
    /// that is no number of an entity stored in that table): that step's stage 1 would read more
    /// rows than it can make objects of and stop, after the steps before it ran. `plan` asks, so
    /// that they are named with the query that lists them before anything runs; it costs a scan
    /// of every table, which `migrate` leaves to the step (which stops, and the plan is undone).
    ///
    /// - Parameter path: The store the plan was made for.
    /// - Throws: A `MigrationError` of kind `.store` naming the rows and the query that lists them;
    ///   a `StoreError` when the store cannot be read.
    public func requireOwnedRows(store path: String) throws {
        guard let first = steps.first,
            let mapping = steps.first(where: { if case .mapping = $0.kind { true } else { false } })
        else { return }
        let store = try PersistentStore.open(at: path)
        defer { try? store.close() }
        let layout = try store.layout(for: first.source.model)
        let stray = try store.withReadConnection { try $0.strayRows(layout: layout) }
        guard !stray.isEmpty else { return }
        let listed = stray.map {
            """
            \($0.rows) row\($0.rows == 1 ? "" : "s") of \($0.table) (entity numbers there: \
            \($0.numbers.map(String.init).joined(separator: ", ")); `\($0.query)`)
            """
        }
        throw MigrationError(
            .store,
            """
            \(path) holds rows no entity of \(first.source.name) owns: \(listed.joined(separator: "; ")); the step \
            \(mapping.source.name) → \(mapping.destination.name) would stop at them (no entity mapping can read \
            them)
            """,
            fix:
                """
                look at them with the query given; delete them, or give each its entity's number (`Z_ENT`), then \
                plan again
                """
        )
    }
}
