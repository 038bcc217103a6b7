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

    /// The whole bar, starting now (a step run on its own).
    static func whole() -> ProgressSpan { ProgressSpan(start: 0, share: 1, planStarted: Date()) }

    /// One span per step, in order, shares proportional to `costs`.
    static func spans(costs: [Double], planStarted: Date = Date()) -> [ProgressSpan] {
        let total = max(costs.reduce(0, +), 1)
        var start = 0.0
        return costs.map { cost in
            defer { start += cost / total }
            return ProgressSpan(start: start, share: cost / total, planStarted: planStarted)
        }
    }
}
