import Foundation

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
