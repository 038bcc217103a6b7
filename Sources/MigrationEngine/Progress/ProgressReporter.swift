import Foundation

/// Counts one step's work against its ``ProgressBudget`` and posts ``MigrationProgress`` on the
/// migration's channel, at most about 20 times a second (stage and mapping changes and the end
/// are always posted). The fraction it posts never goes back and reaches 1 only at the plan's end.
final class ProgressReporter {
    private let channel: ProgressChannel
    private let span: ProgressSpan
    private let budget: ProgressBudget
    private var lastPost = Date.distantPast
    private var current: MigrationProgress
    /// The budget position of the running stage, and the units it has done.
    private var position: Int?
    private var unitsDone = 0
    /// The running stage's start and the rows it has moved, for its own rate.
    private var stageStarted = Date()
    private var stageRows = 0
    /// The largest fraction posted: a stage met out of order never moves the bar back.
    private var shown = 0.0
    /// When this step began, and the plan's paused seconds then.
    private let stepBegan = Date()
    private let pausedAtStepStart: Double
    /// The plan's paused seconds when the running stage began.
    private var pausedAtStageStart = 0.0

    /// A reporter for one step, posting to `target` (its plan's channel, its span and number).
    init(budget: ProgressBudget, target: ProgressTarget) {
        self.budget = budget
        channel = target.channel
        span = target.span
        current = MigrationProgress(
            step: target.step, stepCount: target.stepCount, pass: "", entityMapping: nil, entityMappingIndex: 0,
            entityMappingCount: 0, stage: .preparing, rowsDone: 0, rowsTotal: 0, fraction: span.start,
            rowsPerSecond: 0, elapsed: 0)
        shown = span.start
        pausedAtStepStart = span.paused.seconds
        pausedAtStageStart = pausedAtStepStart
    }

    /// A reporter no one hears (a probe that only counts).
    static func silent() -> ProgressReporter {
        ProgressReporter(budget: ProgressBudget(), target: ProgressTarget(channel: ProgressChannel()))
    }

    /// Starts a stage of an entity mapping (or of the whole step when `mapping` is nil);
    /// `rowsTotal` counts `unit`s.
    func begin(
        stage: MigrationProgress.Stage, pass: String? = nil, step: Int? = nil, mapping: String?, index: Int, count: Int,
        rowsTotal: Int, unit: MigrationProgress.Unit = .rows
    ) {
        if let pass { current.pass = pass }
        if let step { current.step = step }
        (current.stage, current.entityMapping, current.entityMappingIndex, current.entityMappingCount) = (
            stage, mapping, index, count
        )
        (current.rowsDone, current.rowsTotal, current.unit) = (0, rowsTotal, unit)
        let perPass: Set<MigrationProgress.Stage> = [.createInstances, .createRelationships, .validate]
        let key = ProgressBudget.Key(
            pass: perPass.contains(stage) ? current.pass : nil, stage: stage,
            mapping: perPass.contains(stage) ? index : 0)
        position = budget.position(of: key)
        unitsDone = 0
        stageStarted = Date()
        pausedAtStageStart = span.paused.seconds
        stageRows = 0
        post(force: true)
    }

    /// Counts `units` of the stage's work done (and `rows` moved, for the rate).
    func advance(units: Int, rows: Int = 0) {
        unitsDone += units
        stageRows += rows
        current.rowsDone += current.unit == .rows ? rows : units
        // A stage's last count is always shown: the next line never starts from a stale one.
        let planned = position.flatMap { $0 < budget.segments.count ? budget.segments[$0].units : nil } ?? 0
        post(force: planned > 0 && unitsDone >= planned && unitsDone - units < planned)
    }

    /// The end of this step; the fraction reaches 1.0 and the stage `.done` only at the plan's last step.
    func finish() {
        position = budget.segments.count
        if current.step == current.stepCount {
            (current.stage, current.entityMapping, current.rowsDone, current.rowsTotal) = (.done, nil, 0, 0)
        }
        post(force: true)
    }

    /// The step's share done, 0…1, from the stages passed and the running one's units.
    private var stepFraction: Double {
        guard let position else { return 0 }
        guard position < budget.segments.count else { return 1 }
        let segment = budget.segments[position]
        let within = segment.units > 0 ? min(Double(unitsDone) / Double(segment.units), 1) : 0
        return min((budget.cost(before: position) + segment.cost * within) / budget.totalCost, 1)
    }

    /// Seconds the rest of the plan should take: at the rate of this step's own time per share
    /// of the bar once it has done enough to tell (time between steps, spent by a caller's
    /// `afterStep`, is not the engine's rate), else at the plan's so far.
    private func remaining(now: Date) -> Double? {
        let stepShare = shown - span.start,
            stepSeconds = now.timeIntervalSince(stepBegan) - (span.paused.seconds - pausedAtStepStart)
        if stepShare > 0.005 && stepSeconds > 0.2 { return stepSeconds * (1 - shown) / stepShare }
        return shown > 0.02 ? current.elapsed * (1 - shown) / shown : nil
    }

    private func post(force: Bool) {
        let now = Date()
        guard force || now.timeIntervalSince(lastPost) >= 0.05 else { return }
        lastPost = now
        current.elapsed = now.timeIntervalSince(span.planStarted) - span.paused.seconds
        let end = current.stage == .done
        shown = end ? 1.0 : max(shown, min(span.start + span.share * stepFraction, 0.999_999))
        current.fraction = shown
        let stageSeconds = now.timeIntervalSince(stageStarted) - (span.paused.seconds - pausedAtStageStart)
        current.rowsPerSecond = stageSeconds > 0.05 ? Double(stageRows) / stageSeconds : 0
        current.remaining = end ? nil : span.estimate.smoothed(remaining(now: now), elapsed: current.elapsed)
        channel.post(current)
    }
}
