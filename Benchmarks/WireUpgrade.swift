import Demo
import Foundation
import MigrationEngine
import ObjectModel
import SQLiteStore

/// A real app's upgrade many versions behind: a store of Wire's `zmessaging2.24.1` (fixtures in
/// `../shared`) migrated straight to the current version in one inferred step, as Core Data's
/// automatic migration does, against the same tables rebuilt by SQL alone (``WireBaseline``).
/// Goal: within 1.2× of the SQL.
enum WireUpgrade {
    static let name = "wire-upgrade"
    static let summary = "Wire zmessaging2.24.1 → current straight, against the same tables rebuilt by SQL"
    static let version = "zmessaging2.24.1"
    static let goal = Scenario.Goal.ratio(1.2)
    /// Rows per root entity in `--check`: Wire has many root entities, so a few minutes at most.
    static let checkRows = 20_000

    /// The app's model bundle, in the fixtures beside the project root.
    static var bundle: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("shared/fixtures/coredata/wire-ios-data-model/Resources/zmessaging.xcdatamodeld")
    }

    struct Result {
        let rows: Int
        let straight: [Double]
        let baseline: [Double]
        /// What the SQL did: statements, tables rebuilt.
        let statements: Int, rebuilt: Int
        let peakMegabytes: Double

        var ratio: Double { median(straight) / max(median(baseline), 1e-9) }

        var text: String {
            String(
                format:
                    "%@: %@ at %d rows per root entity: Chrysalis %.3f s, SQL %.3f s (%d statements, %d tables rebuilt), ratio %.2f× (goal %@); peak RSS %.1f MB (medians of %d; destinations equal)",
                name, summary, rows, median(straight), median(baseline), statements, rebuilt, ratio, goal.description,
                peakMegabytes, straight.count)
        }

        var json: String {
            String(
                format:
                    #"{"scenario":"%@","rows":%d,"chrysalisSeconds":%.4f,"baselineSeconds":%.4f,"ratio":%.4f,"statements":%d,"tablesRebuilt":%d,"peakRSSMB":%.1f,"destinationsEqual":true}"#,
                name, rows, median(straight), median(baseline), ratio, statements, rebuilt, peakMegabytes)
        }
    }

    /// Makes the source store once, then `rounds` times migrates one copy with Chrysalis and
    /// another with the SQL, alternating which goes first; the first round's two stores must
    /// hold the same data.
    static func measure(rows: Int, rounds: Int, folder: URL) throws -> Result {
        let bundle = try ModelBundle.read(at: Self.bundle)
        guard let model = bundle.version(named: version)?.model else {
            throw BenchError("\(bundle.name) has no version \(version)")
        }
        let source = folder.appendingPathComponent("wire-source.wiredatabase").path
        let ours = folder.appendingPathComponent("wire-chrysalis.wiredatabase").path
        let theirs = folder.appendingPathComponent("wire-baseline.wiredatabase").path
        try ScenarioRun.removeStore(source)
        let store = try PersistentStore.create(at: source, model: model)
        try DataGenerator(model: model).fill(store, rows: rows)
        try store.close()
        defer { for path in [source, ours, theirs] { try? ScenarioRun.removeStore(path) } }
        let script = try WireBaseline.script(source: source, bundle: bundle, scratch: ours)
        var straight: [Double] = [], baseline: [Double] = []
        for round in 0..<rounds {
            let order: [(String, (String) throws -> Void, (Double) -> Void)] = [
                (
                    ours,
                    { path in
                        let plan = try MigrationPlan.make(store: path, bundle: bundle)
                        guard plan.steps.count == 1 else {
                            throw BenchError("the straight route took \(plan.steps.count) steps")
                        }
                        _ = try MigrationRunner.run(plan, store: path, keepBackup: false)
                    }, { straight.append($0) }
                ),
                (theirs, { try script.run(on: $0) }, { baseline.append($0) }),
            ]
            for (path, work, record) in round % 2 == 0 ? order : order.reversed() {
                try ScenarioRun.removeStore(path)
                try FileManager.default.copyItem(atPath: source, toPath: path)
                try ScenarioRun.flush(path)
                let started = Date()
                try work(path)
                record(Date().timeIntervalSince(started))
            }
            if round == 0 { try DestinationComparison.check(ours, equals: theirs) }
        }
        return Result(
            rows: rows, straight: straight, baseline: baseline, statements: script.statements.count,
            rebuilt: script.rebuilt,
            peakMegabytes: ProcessUsage.peakMegabytes())
    }
}
