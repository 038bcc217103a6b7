import Foundation
import Synchronization

/// Where a migration is, posted through `NotificationCenter` under
/// ``MigrationProgress/notification`` (the value is in `userInfo["progress"]`).
public struct MigrationProgress: Sendable, Equatable {
    /// The stages of one mapping pass, then verification and the swap.
    public enum Stage: String, Sendable, Equatable {
        case preparing, createInstances = "create instances", createRelationships = "create relationships"
        case inPlace = "change in place", validate = "validate", verify = "verify", swap = "swap", done = "done"
    }

    /// The notification name every progress value is posted under.
    public static let notification = Notification.Name("ChrysalisMigrationProgress")

    /// 1-based step (one per model version pair) and the number of steps.
    public var step: Int, stepCount: Int
    /// The mapping model running (one per pass).
    public var pass: String
    /// The entity mapping running, its 1-based position and how many there are.
    public var entityMapping: String?, entityMappingIndex: Int, entityMappingCount: Int
    /// The stage.
    public var stage: Stage
    /// Rows done and expected in the current entity mapping and stage.
    public var rowsDone: Int, rowsTotal: Int
    /// The whole migration's progress, 0…1; reaches 1 exactly once, at the end.
    public var fraction: Double
    /// Rows per second so far.
    public var rowsPerSecond: Double
    /// Seconds since the migration started.
    public var elapsed: Double

    /// A progress value (the engine makes these; tests and screens may too).
    public init(step: Int, stepCount: Int, pass: String, entityMapping: String?, entityMappingIndex: Int, entityMappingCount: Int,
                stage: Stage, rowsDone: Int, rowsTotal: Int, fraction: Double, rowsPerSecond: Double, elapsed: Double) {
        self.step = step
        self.stepCount = stepCount
        self.pass = pass
        self.entityMapping = entityMapping
        self.entityMappingIndex = entityMappingIndex
        self.entityMappingCount = entityMappingCount
        self.stage = stage
        self.rowsDone = rowsDone
        self.rowsTotal = rowsTotal
        self.fraction = fraction
        self.rowsPerSecond = rowsPerSecond
        self.elapsed = elapsed
    }
}
