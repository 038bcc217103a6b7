import SQLiteStore

extension StageCost {
    /// Each step's expected cost, for the steps' shares of the plan's bar: from the store's size
    /// alone, spread evenly over a step's source entities (a step's own budget, made when it
    /// starts, knows its real counts).
    static func planCosts(_ plan: MigrationPlan, storeBytes: Int, keepsBackup: Bool, policies: PolicyRegistry)
        -> [Double]
    {
        let rows = max(storeBytes / bytesPerRow, 1)
        return plan.steps.enumerated().map { index, step in
            switch step.kind {
            case .lightweight(let inference):
                // Predicted layouts are enough to tell whether rows can change (and must be counted).
                let sql =
                    step.predictedSQL
                    ?? LightweightSQL(
                        inference: inference, source: step.predicted.source, destination: step.predicted.destination)
                return inferredStep(
                    rows: rows, bytes: storeBytes, backup: index == 0 && keepsBackup, rebuilds: sql.rebuildsTables(),
                    countsRows: !sql.preservesRows()
                ).totalCost
            case .mapping(let models):
                let entities = step.source.model.entities.map(\.name)
                let each = rows / max(entities.count, 1)
                return mappingStep(
                    models, sourceRows: Dictionary(entities.map { ($0, each) }, uniquingKeysWith: { a, _ in a }),
                    createsOwnRelationships: policies.createsOwnRelationships
                ).totalCost
            case .handler:
                return handlerStep(rows: rows, bytes: storeBytes, backup: index == 0 && keepsBackup).totalCost
            }
        }
    }
}
