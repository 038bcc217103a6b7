/// One step of a plan, done and verified: what ``MigrationOptions/afterStep`` is told, so a
/// watcher can show each step's result while the plan goes on.
public struct CompletedStep: Sendable {
    /// The step's 1-based position in the plan, and how many steps the plan has.
    public var index: Int, count: Int
    /// The step as planned (versions, kind, findings).
    public var step: MigrationPlan.Step
    /// What it did.
    public var report: MigrationReport
    /// The store, now at the step's destination version.
    public var store: String

    /// Whether this is the plan's last step.
    public var isLast: Bool { index == count }
}
