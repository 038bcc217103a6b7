import Foundation
import SQLiteStore

/// Runs one scenario: prepares the source once, then for each round migrates a fresh copy with
/// Chrysalis and another with the baseline (alternating which goes first, so neither always
/// meets a warm or cold cache), and checks the destinations are equal.
struct ScenarioRun {
    let scenario: Scenario
    let rows: Int
    let rounds: Int
    let folder: URL
    /// Whether to print where the first Chrysalis run spent its time, stage by stage.
    var stages = false

    struct Result {
        let scenario: Scenario
        let rows: Int
        let sourceRows: Int
        let chrysalis: [Double]
        let baseline: [Double]
        let peakRSSMegabytes: Double

        var chrysalisMedian: Double { median(chrysalis) }
        var baselineMedian: Double { median(baseline) }
        var ratio: Double { chrysalisMedian / max(baselineMedian, 1e-9) }
        var rowsPerSecond: Double { Double(sourceRows) / max(chrysalisMedian, 1e-9) }

        var text: String {
            String(
                format:
                    "%@ (%@), %d rows per root entity: Chrysalis %.3f s, SQL %.3f s, ratio %.2f×, %.0f rows/s, peak RSS %.1f MB (medians of %d; destinations equal)",
                scenario.name, scenario.summary, rows, chrysalisMedian, baselineMedian, ratio, rowsPerSecond,
                peakRSSMegabytes, chrysalis.count)
        }

        var json: String {
            String(
                format:
                    #"{"scenario":"%@","rows":%d,"chrysalisSeconds":%.4f,"baselineSeconds":%.4f,"ratio":%.3f,"rowsPerSecond":%.0f,"peakRSSMB":%.1f,"rounds":%d,"destinationsEqual":true}"#,
                scenario.name, rows, chrysalisMedian, baselineMedian, ratio, rowsPerSecond, peakRSSMegabytes,
                chrysalis.count)
        }
    }

    func measure() throws -> Result {
        let source = folder.appendingPathComponent("\(scenario.name)-source.sqlite").path
        try Self.removeStore(source)
        try scenario.prepare(source, rows)
        let sourceRows = try StoreRows.count(source)
        var chrysalisTimes: [Double] = [], baselineTimes: [Double] = []
        let ours = folder.appendingPathComponent("\(scenario.name)-chrysalis.sqlite").path
        let theirs = folder.appendingPathComponent("\(scenario.name)-baseline.sqlite").path
        for round in 0..<rounds {
            let order: [(String, (String) throws -> Void, (Double) -> Void)] = [
                (ours, scenario.chrysalis, { chrysalisTimes.append($0) }),
                (theirs, scenario.baseline, { baselineTimes.append($0) }),
            ]
            for (path, work, record) in round % 2 == 0 ? order : order.reversed() {
                try Self.removeStore(path)
                try FileManager.default.copyItem(atPath: source, toPath: path)
                try Self.flush(path)
                let times = stages && round == 0 && path == ours ? StageTimes() : nil
                times?.start()
                _ = BaselineSteps.shared.take()
                let started = Date()
                try work(path)
                record(Date().timeIntervalSince(started))
                if let lines = times?.stop() {
                    emit("\(scenario.name), first Chrysalis run, by stage:\n" + lines.joined(separator: "\n"))
                }
                if stages && round == 0 && path == theirs {
                    emit(
                        "\(scenario.name), first SQL run, by step:\n"
                            + BaselineSteps.shared.take().joined(separator: "\n"))
                }
            }
            if round == 0 { try DestinationComparison.check(ours, equals: theirs) }
        }
        for path in [source, ours, theirs] { try Self.removeStore(path) }
        return Result(
            scenario: scenario, rows: rows, sourceRows: sourceRows, chrysalis: chrysalisTimes, baseline: baselineTimes,
            peakRSSMegabytes: ProcessUsage.peakMegabytes())
    }

    /// Writes the fresh copy to disk before the clock starts: otherwise the first fsync either
    /// side makes (a commit) pays for flushing the whole copied file on ext4.
    static func flush(_ path: String) throws {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw BenchError("cannot open \(path) to flush it") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw BenchError("cannot flush \(path)") }
    }

    static func removeStore(_ path: String) throws {
        for file in StoreFiles.paths(of: path) where FileManager.default.fileExists(atPath: file) {
            try FileManager.default.removeItem(atPath: file)
        }
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}
