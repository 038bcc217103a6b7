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

/// Lets a caller stop a running migration between chunks; the migration then rolls back.
public final class CancellationToken: Sendable {
    private let flag = Mutex(false)

    /// A token that has not been cancelled.
    public init() {}

    /// Asks the migration to stop at its next chunk boundary.
    public func cancel() { flag.withLock { $0 = true } }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { flag.withLock { $0 } }

    /// Throws the cancellation error when ``cancel()`` was called.
    public func check() throws {
        if isCancelled { throw MigrationError(.cancelled, "the migration was cancelled") }
    }
}

/// Counts work against a fixed total and posts ``MigrationProgress``, at most about 20 times a
/// second (stage and mapping changes and the end are always posted).
final class ProgressReporter {
    private let start = Date()
    private var lastPost = Date.distantPast
    private var lastKey = ""
    private var current: MigrationProgress
    private(set) var done = 0
    private var rows = 0
    let total: Int

    /// This reporter covers step `step` of `stepCount`: its fractions fill that step's share of
    /// the whole, and only the last step's end posts 1.0.
    let step: Int

    init(total: Int, step: Int = 1, stepCount: Int = 1) {
        self.total = max(total, 1)
        self.step = step
        current = MigrationProgress(step: step, stepCount: stepCount, pass: "", entityMapping: nil, entityMappingIndex: 0,
                                    entityMappingCount: 0, stage: .preparing, rowsDone: 0, rowsTotal: 0, fraction: 0,
                                    rowsPerSecond: 0, elapsed: 0)
    }

    /// Starts a stage of an entity mapping (or of the whole migration when `mapping` is nil).
    func begin(stage: MigrationProgress.Stage, pass: String? = nil, step: Int? = nil, mapping: String?, index: Int, count: Int, rowsTotal: Int) {
        current.stage = stage
        if let pass { current.pass = pass }
        if let step { current.step = step }
        current.entityMapping = mapping
        current.entityMappingIndex = index
        current.entityMappingCount = count
        current.rowsDone = 0
        current.rowsTotal = rowsTotal
        post(force: true)
    }

    /// Counts `units` of work (and `rows` moved) done.
    func advance(units: Int, rows: Int = 0) {
        done = min(done + units, total - 1)
        self.rows += rows
        current.rowsDone += rows
        post(force: false)
    }

    /// The end of this step; fraction 1.0 and `.done` only when it is the last step.
    func finish() {
        done = total
        if step == current.stepCount {
            current.stage = .done
            current.entityMapping = nil
        }
        post(force: true)
    }

    private func post(force: Bool) {
        let now = Date()
        guard force || now.timeIntervalSince(lastPost) >= 0.05 else { return }
        lastPost = now
        current.elapsed = now.timeIntervalSince(start)
        let local = done >= total ? 1.0 : min(Double(done) / Double(total), 0.999_999)
        let overall = (Double(step - 1) + local) / Double(max(current.stepCount, 1))
        current.fraction = local == 1.0 && step == current.stepCount ? 1.0 : min(overall, 0.999_999)
        current.rowsPerSecond = current.elapsed > 0 ? Double(rows) / current.elapsed : 0
        NotificationCenter.default.post(name: MigrationProgress.notification, object: nil, userInfo: ["progress": current])
    }
}
