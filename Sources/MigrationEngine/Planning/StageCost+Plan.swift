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
            step.kind.work.planCost(
                step, rows: rows, bytes: storeBytes, backup: index == 0 && keepsBackup, policies: policies)
        }
    }
}
