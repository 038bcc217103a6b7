import SQLiteStore

extension SpaceCheck {
    /// What `plan` needs at its most demanding step (see ``plan(steps:store:keepsOriginal:)``):
    /// a mapping step a new store, an inferred step what its SQL does in place.
    static func plan(_ plan: MigrationPlan, store: String, keepsOriginal: Bool) -> SpaceCheck {
        let rows = max(StoreFiles.bytes(of: store) / StageCost.bytesPerRow, 1)
        let steps = plan.steps.enumerated().map { index, step -> (work: SpaceCheck, name: String) in
            switch step.kind {
            case .mapping:
                return (
                    SpaceCheck(.newStore(rows: rows), store: store), "\(step.source.name) → \(step.destination.name)"
                )
            case .lightweight(let inference):
                let sql =
                    step.predictedSQL
                    ?? LightweightSQL(
                        inference: inference, source: step.predicted.source, destination: step.predicted.destination)
                return (
                    SpaceCheck(
                        .alterInPlace(
                            backup: index == 0 && keepsOriginal,
                            rewritesRows: sql.rewritesRows(methods: sql.tableMethods()),
                            rebuilds: sql.rebuildsTables()), store: store),
                    "\(step.source.name) → \(step.destination.name)"
                )
            case .handler(let handler):
                // What the handler writes is unknown: it may touch every row, so its journal may hold the whole store.
                return (
                    SpaceCheck(.alterInPlace(backup: index == 0 && keepsOriginal, rewritesRows: true), store: store),
                    handler.name
                )
            }
        }
        return SpaceCheck.plan(steps: steps, store: store, keepsOriginal: keepsOriginal)
    }
}
