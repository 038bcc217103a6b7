import Foundation

/// `chrysalis-bench --check`: every scenario with a goal, at the size its goal is set at,
/// as one table, so a change that makes a step slower than its goal is seen before it lands
/// (issue 32 §6: a whole-file check once made adding an attribute 60× slower and no test saw it).
struct BenchCheck {
    /// Rows per root entity: 1M, the size issue 32 states its goals at. The check once ran at
    /// 200,000 rows, taking the ratios there to track those at 1M. They do not: the baselines'
    /// time grows faster than the rows, Chrysalis's about with them (custom-policy on 2 Xeon
    /// cores: SQL 6.6× as long for 5× the rows, Chrysalis 4.7×), so the check read there
    /// custom-policy 1.49× at 200,000 rows and 1.06× at 1M, and six of fourteen goals missed at
    /// 200,000 while every one was met at 1M. A check that fails on a tree meeting its goals
    /// teaches people to ignore it. Three rounds still, the median taken: one round at 1M read
    /// whole-chain anywhere from 1.09× to 1.24× against its 1.2× goal, the median of three 1.14×.
    static let defaultRows = 1_000_000

    /// Each scenario's line; `ratio` is given where it is not Chrysalis's time over the SQL's.
    private var lines:
        [(name: String, chrysalis: Double, baseline: Double?, ratio: Double?, goal: Scenario.Goal, met: Bool)] = []

    var allMet: Bool { lines.allSatisfy(\.met) }

    mutating func add(_ result: ScenarioRun.Result) {
        lines.append(
            (
                result.scenario.name, result.chrysalisMedian, result.baselineMedian, nil, result.scenario.goal,
                result.scenario.goal.isMet(chrysalis: result.chrysalisMedian, ratio: result.ratio)
            ))
    }

    mutating func add(_ result: HistoryCheckScenario.Result) {
        let goal = HistoryCheckScenario.goal
        lines.append(
            (
                HistoryCheckScenario.name, result.medianSeconds, nil, nil, goal,
                result.failed.isEmpty && goal.isMet(chrysalis: result.medianSeconds, ratio: 0)
            ))
    }

    mutating func add(_ result: WireUpgrade.Result) {
        lines.append(
            (
                WireUpgrade.name + " (\(result.rows / 1000)k)", median(result.straight), median(result.baseline), nil,
                WireUpgrade.goal,
                WireUpgrade.goal.isMet(chrysalis: median(result.straight), ratio: result.ratio)
            ))
    }

    mutating func add(_ result: EstimateError.Result) {
        lines.append(
            (
                EstimateError.name + " (\(result.rows / 1000)k)", result.seconds, nil, result.worst?.error ?? 1,
                .ratio(EstimateError.goal), result.met
            ))
    }

    /// The console's latency: the worst key, or the slowest first frame, against `goal`.
    mutating func add(_ result: ConsoleLatency.Result, goal: Scenario.Goal) {
        lines.append((result.name, result.worst, nil, nil, goal, goal.isMet(chrysalis: result.worst, ratio: 0)))
    }

    /// The table: each scenario's medians, ratio, goal and verdict, then the count that missed.
    func text(rows: Int) -> String {
        var text = "chrysalis-bench --check at \(rows) rows per root entity\n"
        // As wide as the longest name: a cut name could be another scenario's.
        let width = max(22, lines.map(\.name.count).max() ?? 0)
        text +=
            "scenario".padding(toLength: width, withPad: " ", startingAt: 0)
            + "   Chrysalis        SQL    ratio  goal       verdict\n"
        for line in lines {
            let ratio =
                (line.ratio ?? line.baseline.map { line.chrysalis / max($0, 1e-9) }).map {
                    String(format: "%7.2f×", $0)
                } ?? "       –"
            let baseline = line.baseline.map { String(format: "%9.3f s", $0) } ?? "          –"
            text +=
                line.name.padding(toLength: width, withPad: " ", startingAt: 0)
                + String(format: " %9.3f s", line.chrysalis) + " " + baseline + " " + ratio + "  "
                + line.goal.description.padding(toLength: 10, withPad: " ", startingAt: 0) + " "
                + (line.met ? "ok" : "MISSED") + "\n"
        }
        let missed = lines.filter { !$0.met }.count
        text += missed == 0 ? "every scenario meets its goal" : "\(missed) of \(lines.count) scenarios miss their goal"
        return text
    }
}
