import Foundation
import Synchronization

/// Where a migration is, posted through `NotificationCenter` under
/// ``MigrationProgress/notification`` (the value is in `userInfo["progress"]`).
public struct MigrationProgress: Sendable, Equatable {
    /// The stages of one mapping pass, then verification and the swap.
    public enum Stage: String, Sendable, Equatable {
        case preparing, createInstances = "create instances", createRelationships = "create relationships"
        case validate = "validate", verify = "verify", swap = "swap", done = "done"
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

    init(total: Int, stepCount: Int) {
        self.total = max(total, 1)
        current = MigrationProgress(step: 1, stepCount: stepCount, pass: "", entityMapping: nil, entityMappingIndex: 0,
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

    /// The end: fraction 1.0, posted once.
    func finish() {
        done = total
        current.stage = .done
        current.entityMapping = nil
        post(force: true)
    }

    private func post(force: Bool) {
        let now = Date()
        guard force || now.timeIntervalSince(lastPost) >= 0.05 else { return }
        lastPost = now
        current.elapsed = now.timeIntervalSince(start)
        current.fraction = done >= total ? 1.0 : min(Double(done) / Double(total), 0.999_999)
        current.rowsPerSecond = current.elapsed > 0 ? Double(rows) / current.elapsed : 0
        NotificationCenter.default.post(name: MigrationProgress.notification, object: nil, userInfo: ["progress": current])
    }
}
