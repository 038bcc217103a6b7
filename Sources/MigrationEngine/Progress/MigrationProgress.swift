import Foundation

/// Where a migration is, posted through `NotificationCenter` by the migration's own
/// ``ProgressChannel`` (read it with ``ProgressChannel/observe(_:)`` or
/// `Notification.migrationProgress`): one value says which step, pass, entity mapping and stage
/// run, how much of the stage is done in the stage's own unit, and how much of the whole plan.
public struct MigrationProgress: Sendable, Equatable {
    /// The stages of a step: a mapping step's three stages, index builds and verification; an
    /// in-place step's backup copy and its change; then the swap.
    public enum Stage: String, Sendable, Equatable {
        case preparing, createInstances = "create instances", createRelationships = "create relationships"
        case backup = "copy the original", inPlace = "change in place", indexes = "build indexes"
        case validate = "validate", verify = "verify", swap = "swap", done = "done"
        /// A staged migration's handler at work (``MigrationProgress/rowsDone`` counts its changes).
        case handler = "run a handler"
    }

    /// What ``rowsDone`` and ``rowsTotal`` count in the current stage, so a line never says
    /// "rows" of something that is not rows.
    public enum Unit: String, Sendable, Equatable {
        /// Rows of the store (created, linked, checked or counted).
        case rows
        /// Tables changed or checked (an in-place change, a schema check).
        case tables
        /// Indexes built.
        case indexes
        /// Megabytes copied (a backup).
        case megabytes = "MB"
        /// Files moved into place (the swap).
        case files
    }

    /// The notification name progress values are posted under (each by its migration's
    /// ``ProgressChannel``, so an observer of one channel sees one migration).
    public static let notification = Notification.Name("ChrysalisMigrationProgress")

    /// 1-based step (one per model version pair) and the number of steps.
    public var step: Int, stepCount: Int
    /// The mapping model running (one per pass), or the in-place step's name.
    public var pass: String
    /// The entity mapping running, its 1-based position and how many there are.
    public var entityMapping: String?, entityMappingIndex: Int, entityMappingCount: Int
    /// The stage.
    public var stage: Stage
    /// Work done and expected in the current stage, counted in ``unit``s (rows in most stages);
    /// a total of 0 means the stage's size is not known beforehand (statements as they run).
    public var rowsDone: Int, rowsTotal: Int
    /// What ``rowsDone`` and ``rowsTotal`` count.
    public var unit: Unit
    /// The whole plan's progress, 0…1, each stage's share taken from what it costs; reaches 1
    /// exactly once, at the end.
    public var fraction: Double
    /// Units per second in the current stage (not averaged across stages, whose rates differ by
    /// orders of magnitude).
    public var rowsPerSecond: Double
    /// Seconds since the migration (the whole plan) started.
    public var elapsed: Double
    /// Seconds the rest of the plan should take, from the estimated cost of what is left and the
    /// rate seen so far; nil until enough is done to tell.
    public var remaining: Double?

    /// A progress value (the engine makes these; tests and screens may too).
    ///
    /// - Parameters:
    ///   - step: The 1-based step.
    ///   - stepCount: The number of steps.
    ///   - pass: The mapping model running, or the in-place step's name.
    ///   - entityMapping: The entity mapping running, if any.
    ///   - entityMappingIndex: Its 1-based position.
    ///   - entityMappingCount: How many entity mappings there are.
    ///   - stage: The stage.
    ///   - rowsDone: Work done in the stage, in `unit`s.
    ///   - rowsTotal: Work expected in the stage; 0 when not known.
    ///   - unit: What `rowsDone` and `rowsTotal` count.
    ///   - fraction: The whole plan's progress, 0…1.
    ///   - rowsPerSecond: Units per second in the stage.
    ///   - elapsed: Seconds since the plan started.
    ///   - remaining: Seconds the rest should take, when known.
    public init(
        step: Int, stepCount: Int, pass: String, entityMapping: String?, entityMappingIndex: Int,
        entityMappingCount: Int,
        stage: Stage, rowsDone: Int, rowsTotal: Int, unit: Unit = .rows, fraction: Double, rowsPerSecond: Double,
        elapsed: Double,
        remaining: Double? = nil
    ) {
        self.step = step
        self.stepCount = stepCount
        self.pass = pass
        self.entityMapping = entityMapping
        self.entityMappingIndex = entityMappingIndex
        self.entityMappingCount = entityMappingCount
        self.stage = stage
        self.rowsDone = rowsDone
        self.rowsTotal = rowsTotal
        self.unit = unit
        self.fraction = fraction
        self.rowsPerSecond = rowsPerSecond
        self.elapsed = elapsed
        self.remaining = remaining
    }

    /// Whether the stage comes after every entity mapping of the pass has run (so all of them are done).
    public var isAfterEntityMappings: Bool {
        [.indexes, .validate, .verify, .swap, .done].contains(stage)
    }
}

extension Notification {
    /// The progress value a ``ProgressChannel`` posted, or nil for any other notification:
    /// the one place that knows where the value travels.
    public var migrationProgress: MigrationProgress? {
        userInfo?[ProgressChannel.userInfoKey] as? MigrationProgress
    }
}
