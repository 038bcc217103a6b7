import SQLiteStore

extension SpaceCheck {
    /// What `plan` needs at its most demanding step (see ``plan(steps:store:keepsOriginal:)``):
    /// a mapping step a new store, an inferred step what its SQL does in place.
    static func plan(_ plan: MigrationPlan, store: String, keepsOriginal: Bool) -> SpaceCheck {
        let rows = max(StoreFiles.bytes(of: store) / StageCost.bytesPerRow, 1)
        let steps = plan.steps.enumerated().map { index, step in
            step.kind.work.space(step, rows: rows, store: store, backup: index == 0 && keepsOriginal)
        }
        return SpaceCheck.plan(steps: steps, store: store, keepsOriginal: keepsOriginal)
    }
}
