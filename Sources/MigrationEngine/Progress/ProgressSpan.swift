import Foundation

/// The part of the whole plan's bar one step fills, and when the plan started: a plan runner
/// gives each step a share from its estimated cost (``StageCost``), so a millisecond in-place
/// step does not take a quarter of a four-step bar.
struct ProgressSpan: Sendable {
    /// Where the step's part of the bar starts, 0…1.
    var start: Double
    /// How much of the bar the step fills.
    var share: Double
    /// When the plan started: elapsed time and the ETA are the plan's, not the step's.
    var planStarted: Date
    /// Time the plan spent paused (step mode waiting for a key): not the migration's, so elapsed
    /// time, the ETA and step times leave it out. Shared by every step of the plan.
    var paused = PausedTime()
    /// The ETA shown so far, blended step after step.
    var estimate = SteadyEstimate()

    /// The whole bar, starting now (a step run on its own).
    static func whole() -> ProgressSpan { ProgressSpan(start: 0, share: 1, planStarted: Date()) }

    /// One span per step, in order, shares proportional to `costs`.
    static func spans(costs: [Double], planStarted: Date = Date()) -> [ProgressSpan] {
        let total = max(costs.reduce(0, +), 1)
        let (paused, estimate) = (PausedTime(), SteadyEstimate())
        var start = 0.0
        return costs.map { cost in
            defer { start += cost / total }
            return ProgressSpan(
                start: start, share: cost / total, planStarted: planStarted, paused: paused, estimate: estimate)
        }
    }
}

/// Seconds a plan has spent paused, added to by whoever waits (the step-mode callbacks).
final class PausedTime: @unchecked Sendable {
    private var total = 0.0
    private let lock = NSLock()

    /// The seconds paused so far.
    var seconds: Double { lock.withLock { total } }

    /// Runs `wait`, counting the time it takes as paused.
    func counting<T>(_ wait: () throws -> T) rethrows -> T {
        let started = Date()
        defer { lock.withLock { total += Date().timeIntervalSince(started) } }
        return try wait()
    }
}
