import Demo
import Foundation
import MigrationEngine
import ObjectModel
import SQLiteStore

/// A real app's upgrade many versions behind: a store of Wire's `zmessaging2.24.1` (fixtures in
/// `../shared`) migrated straight to the current version, as Core Data's automatic migration
/// does, against the same store migrated one version at a time (`--stepwise`). Target: the
/// straight step takes no more than 1.2× the slowest single step of the stepwise route — one
/// step over the whole history costs about what one step costs.
enum WireUpgrade {
    static let name = "wire-upgrade"
    static let summary = "Wire zmessaging2.24.1 → current straight, against its slowest single step"
    static let version = "zmessaging2.24.1"

    /// The app's model bundle, in the fixtures beside the project root.
    static var bundle: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("shared/fixtures/coredata/wire-ios-data-model/Resources/zmessaging.xcdatamodeld")
    }

    struct Result {
        let rows: Int
        let straight: [Double]
        /// Each stepwise run's steps: from, to, seconds.
        let steps: [[(from: String, to: String, seconds: Double)]]
        let peakMegabytes: Double

        /// The slowest step of each stepwise run, and its median.
        var slowest: [(from: String, to: String, seconds: Double)] { steps.compactMap { $0.max { $0.seconds < $1.seconds } } }
        var ratio: Double { median(straight) / max(median(slowest.map(\.seconds)), 1e-9) }

        var text: String {
            let step = slowest.first.map { "\($0.from) → \($0.to)" } ?? "none"
            let total = median(steps.map { $0.map(\.seconds).reduce(0, +) })
            let slowestFive = (steps.first ?? []).sorted { $0.seconds > $1.seconds }.prefix(5)
                .map { String(format: "%@ → %@ %.3f s", $0.from, $0.to, $0.seconds) }.joined(separator: ", ")
            return String(format: "%@: %@ at %d rows per root entity: straight %.3f s, stepwise %d steps %.3f s in all, slowest step %@ %.3f s; ratio %.2f× (target ≤ 1.2×); peak RSS %.1f MB\n  slowest steps (first run): %@",
                          name, summary, rows, median(straight), steps.first?.count ?? 0, total, step, median(slowest.map(\.seconds)), ratio, peakMegabytes, slowestFive)
        }

        var json: String {
            String(format: #"{"scenario":"%@","rows":%d,"straightSeconds":%.4f,"slowestStepSeconds":%.4f,"slowestStep":"%@","steps":%d,"ratio":%.4f,"peakMegabytes":%.1f}"#,
                   name, rows, median(straight), median(slowest.map(\.seconds)), slowest.first.map { "\($0.from) → \($0.to)" } ?? "",
                   steps.first?.count ?? 0, ratio, peakMegabytes)
        }
    }

    /// Makes the source store once, then `rounds` times migrates a copy straight and another copy
    /// step by step, alternating which goes first.
    static func measure(rows: Int, rounds: Int, folder: URL) throws -> Result {
        let bundle = try ModelBundle.read(at: Self.bundle)
        guard let model = bundle.version(named: version)?.model else { throw BenchError("\(bundle.name) has no version \(version)") }
        let source = folder.appendingPathComponent("wire-source.wiredatabase").path
        let copy = folder.appendingPathComponent("wire-run.wiredatabase").path
        try ScenarioRun.removeStore(source)
        let store = try PersistentStore.create(at: source, model: model)
        try DataGenerator(model: model).fill(store, rows: rows)
        try store.close()
        defer { try? ScenarioRun.removeStore(source); try? ScenarioRun.removeStore(copy) }
        var straight: [Double] = [], steps: [[(from: String, to: String, seconds: Double)]] = []
        for round in 0..<rounds {
            for route in round % 2 == 0 ? [PlanRoute.automatic, .stepwise] : [.stepwise, .automatic] {
                try ScenarioRun.removeStore(copy)
                try FileManager.default.copyItem(atPath: source, toPath: copy)
                let plan = try MigrationPlan.make(store: copy, bundle: bundle, route: route)
                let started = Date()
                let report = try MigrationRunner.run(plan, store: copy, keepBackup: false)
                let seconds = Date().timeIntervalSince(started)
                if route == .automatic {
                    guard report.steps.count == 1 else { throw BenchError("the straight route took \(report.steps.count) steps") }
                    straight.append(seconds)
                } else {
                    steps.append(report.steps.map { ($0.sourceVersion, $0.destinationVersion, $0.duration) })
                }
            }
        }
        return Result(rows: rows, straight: straight, steps: steps, peakMegabytes: ProcessUsage.peakMegabytes())
    }
}
