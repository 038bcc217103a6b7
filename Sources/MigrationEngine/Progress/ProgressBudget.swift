/// The stages a step will go through, in order, each with how many units it counts and what it
/// is expected to cost: the progress bar gives each stage the share of the step its cost is of
/// the step's, so a stage that takes a tenth of the time takes a tenth of the bar.
struct ProgressBudget {
    /// Which stage: per-pass stages are keyed by pass (and entity mapping), step-level ones not.
    struct Key: Hashable {
        var pass: String?
        var stage: MigrationProgress.Stage
        var mapping: Int
    }

    /// One stage of the step, in the order it runs.
    struct Segment {
        var key: Key
        /// Units the stage counts (rows, statements…); 0 when not known beforehand.
        var units: Int
        /// Expected cost, in ``StageCost`` units (about a microsecond of a debug build's time).
        var cost: Double
    }

    private(set) var segments: [Segment] = []
    private var positions: [Key: Int] = [:]

    /// The sum of every stage's cost (never zero, so shares are defined).
    var totalCost: Double { max(segments.reduce(0) { $0 + $1.cost }, 1) }

    /// Appends a stage (a key added twice keeps its first place).
    mutating func add(_ stage: MigrationProgress.Stage, pass: String? = nil, mapping: Int = 0, units: Int, cost: Double)
    {
        let key = Key(pass: pass, stage: stage, mapping: mapping)
        guard positions[key] == nil else { return }
        positions[key] = segments.count
        segments.append(Segment(key: key, units: units, cost: max(cost, 0)))
    }

    /// Where the stage `key` is in the order, if the budget has it.
    func position(of key: Key) -> Int? { positions[key] }

    /// The cost of every stage before position `index`.
    func cost(before index: Int) -> Double { segments.prefix(index).reduce(0) { $0 + $1.cost } }
}
