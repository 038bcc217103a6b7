/// Where one step's progress goes: its plan's channel, the part of the plan's bar the step
/// fills, and its place in the plan. A plan runner makes one per step; a step run on its own
/// fills the whole bar.
struct ProgressTarget: Sendable {
    var channel: ProgressChannel
    var span = ProgressSpan.whole()
    /// The step's 1-based position in its plan, and how many steps the plan has.
    var step = 1, stepCount = 1
}
