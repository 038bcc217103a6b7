import ArgumentParser
import Foundation
import ObjectModel

/// chrysalis-bench: speed is measured here, in a release build, never in tests. Each scenario
/// times Chrysalis against hand-written SQL doing the same work on the same machine in the same
/// run, alternating which goes first, and reports only after checking both made the same data.
@main
struct ChrysalisBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chrysalis-bench",
        abstract: "Time Chrysalis migrations against hand-written SQL, and the console's render.",
        discussion: """
            Scenarios: \(Scenario.all.map { "\($0.name) (\($0.summary))" }.joined(separator: "; ")); \(WireUpgrade.name) (\(WireUpgrade.summary)); \(EstimateError.name) (\(EstimateError.summary)); \(HistoryCheckScenario.name) (\(HistoryCheckScenario.summary)); progress (scenario 3 with and without a progress observer, in at least \(ProgressOverhead.minimumPairs) pairs); render (the console's migrate screen at 120x40); \(ConsoleLatency.keysName) (\(ConsoleLatency.keysSummary)); \(ConsoleLatency.firstFrameName) (\(ConsoleLatency.firstFrameSummary)).

            Build in release for meaningful numbers:
              swift run -c release chrysalis-bench --rows 1000000

            Before changing the engine or the store, and after:
              swift run -c release chrysalis-bench --check
            runs every scenario with a goal at \(BenchCheck.defaultRows) rows per root entity, the size \
            their goals are set at (Wire's upgrade at \(WireUpgrade.checkRows), its ETA at \(EstimateError.checkRows)), about ten minutes, prints \
            each against its goal and exits 1 when one misses it.
            """,
        version: ChrysalisVersion.current)

    @Option(help: "Rows per root entity in each source store (default: 1000000, for --check too).")
    var rows: Int?

    @Flag(help: "Run every scenario that has a goal, print the table, and exit 1 when a scenario misses its goal.")
    var check = false

    @Option(help: "Run only this scenario (repeatable).")
    var scenario: [String] = []

    @Option(help: "Runs of each side; the median is reported.")
    var rounds = 3

    @Option(help: "Where to put the stores (default: a new temporary folder, removed afterwards).")
    var dir: String?

    @Option(help: "Frames the render benchmark draws.")
    var frames = 20_000

    @Flag(
        help:
            "Also print where the first Chrysalis run of each scenario spent its time, stage by stage, and the first SQL run step by step (for eta, every progress post with its ETA)."
    )
    var stages = false

    @Flag(help: "Print one JSON object per scenario.")
    var json = false

    @Option(
        parsing: .upToNextOption,
        help: ArgumentHelp(
            "Only check that two stores hold the same data, as every scenario does before it reports.",
            valueName: "store"))
    var compare: [String] = []

    func validate() throws {
        guard (rows ?? 0) >= 0 else { throw ValidationError("--rows must be 0 or more") }
        guard frames >= 1 else { throw ValidationError("--frames must be 1 or more") }
        guard rounds >= 1 else { throw ValidationError("--rounds must be 1 or more") }
        guard compare.isEmpty || compare.count == 2 else {
            throw ValidationError("--compare takes two stores, not \(compare.count)")
        }
        for path in compare where !FileManager.default.fileExists(atPath: path) {
            throw ValidationError("--compare: no store at \(path)")
        }
        let known = Set(
            Scenario.all.map(\.name) + [
                WireUpgrade.name, EstimateError.name, HistoryCheckScenario.name, "progress", "render",
                ConsoleLatency.keysName, ConsoleLatency.firstFrameName,
            ])
        for name in scenario where !known.contains(name) {
            throw ValidationError("no scenario \(name); use one of: \(known.sorted().joined(separator: ", "))")
        }
    }

    func run() throws {
        if compare.count == 2 {
            try DestinationComparison.check(compare[0], equals: compare[1], names: (compare[0], compare[1]))
            emit("\(compare[0]) and \(compare[1]) hold the same data")
            return
        }
        let selected = { (name: String) in scenario.isEmpty || scenario.contains(name) }
        let rows = self.rows ?? (check ? BenchCheck.defaultRows : 1_000_000)
        let folder =
            dir.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("chrysalis-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { if dir == nil { try? FileManager.default.removeItem(at: folder) } }
        if check {
            var table = BenchCheck()
            for scenario in Scenario.all where selected(scenario.name) {
                let result = try ScenarioRun(
                    scenario: scenario, rows: rows, rounds: rounds, folder: folder, stages: stages
                ).measure()
                emit(json ? result.json : result.text)
                table.add(result)
            }
            if selected(HistoryCheckScenario.name) {
                let result = try HistoryCheckScenario.measure(rounds: 1, folder: folder)
                emit(json ? result.json : result.text)
                table.add(result)
            }
            if selected(WireUpgrade.name) {
                let result = try WireUpgrade.measure(
                    rows: self.rows ?? WireUpgrade.checkRows, rounds: rounds, folder: folder)
                emit(json ? result.json : result.text)
                table.add(result)
            }
            if selected(EstimateError.name) {
                let result = try EstimateError.measure(rows: self.rows ?? EstimateError.checkRows, folder: folder)
                emit(json ? result.json : result.text)
                if stages && !json { emit(result.timeline) }
                table.add(result)
            }
            try console(rounds: rounds, folder: folder, selected: selected) { table.add($0, goal: $1) }
            emit(table.text(rows: rows))
            if !table.allMet { throw ExitCode(1) }
            return
        }
        for scenario in Scenario.all where selected(scenario.name) {
            let result = try ScenarioRun(scenario: scenario, rows: rows, rounds: rounds, folder: folder, stages: stages)
                .measure()
            emit(json ? result.json : result.text)
        }
        if selected(HistoryCheckScenario.name) {
            let result = try HistoryCheckScenario.measure(rounds: rounds, folder: folder)
            emit(json ? result.json : result.text)
        }
        if selected(WireUpgrade.name) {
            let result = try WireUpgrade.measure(rows: rows, rounds: rounds, folder: folder)
            emit(json ? result.json : result.text)
        }
        if selected(EstimateError.name) {
            let result = try EstimateError.measure(rows: rows, folder: folder)
            emit(json ? result.json : result.text)
            if stages && !json { emit(result.timeline) }
        }
        if selected("progress") {
            let result = try ProgressOverhead.measure(rows: rows, rounds: rounds, folder: folder)
            emit(json ? result.json : result.text)
        }
        try console(rounds: rounds, folder: folder, selected: selected) { _, _ in }
        if selected("render") {
            let seconds = RenderBenchmark.run(frames: frames)
            emit(
                json
                    ? #"{"scenario":"render","microsecondsPerFrame":\#(String(format: "%.1f", seconds * 1e6))}"#
                    : "render: console migrate screen 120x40: \(String(format: "%.1f", seconds * 1e6)) µs per frame")
        }
    }
}

extension ChrysalisBench {
    /// The console's key latency and first frame, each printed and handed to `record` with its goal.
    func console(
        rounds: Int, folder: URL, selected: (String) -> Bool, record: (ConsoleLatency.Result, Scenario.Goal) -> Void
    ) throws {
        if selected(ConsoleLatency.keysName) {
            let result = try ConsoleLatency.keys(600, folder: folder)
            emit(json ? result.json : result.text)
            record(result, ConsoleLatency.keysGoal)
        }
        if selected(ConsoleLatency.firstFrameName) {
            let result = try ConsoleLatency.firstFrame(rounds: rounds, folder: folder)
            emit(json ? result.json : result.text)
            record(result, ConsoleLatency.firstFrameGoal)
        }
    }
}

/// Writes `text` and a newline at once, unbuffered: a run at 10M rows takes many minutes, and
/// each scenario's result should show as it finishes, into a pipe or a file too.
func emit(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}
