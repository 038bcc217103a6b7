import Foundation
import MigrationEngine
import ObjectModel
import SQLiteStore

/// How far the ETA the console and `migrate` show is from the time that really remained, on
/// the large in-place step users wait longest for: Wire's upgrade from `zmessaging2.24.1`
/// straight to the current version, with its backup, as `chrysalis migrate` runs it. The ETA
/// as the console shows it (the last post's, counted down) is compared, every tenth of a
/// second after the first fifth of the run, with the seconds that were really left; the error
/// is the larger of shown/left and left/shown, both floored at a second (the ETA is shown in
/// whole seconds). Goal: the worst moment within 1.5×.
enum EstimateError {
    static let name = "eta"
    static let summary =
        "the shown ETA against the time really left, Wire zmessaging2.24.1 → current in place with its backup"
    static let goal = 1.5
    /// Rows per root entity in `--check`: a store of about 200 MB, whose step takes seconds.
    static let checkRows = 100_000
    /// Below a second left, an ETA rounded up to whole seconds cannot be nearer.
    static let floorSeconds = 1.0

    struct Sample {
        let at: Double
        let shown: Double?
        let stage: MigrationProgress.Stage
    }

    struct Result {
        let rows: Int
        let seconds: Double
        let samples: [Sample]

        /// The ETA as the console shows it, every tenth of a second after the first fifth: the
        /// last post's, counted down since it was posted; with the seconds really left then and
        /// the error.
        var judged: [(at: Double, shown: Double?, stage: MigrationProgress.Stage, left: Double, error: Double)] {
            stride(from: seconds / 5, to: seconds, by: 0.1).compactMap { at in
                guard let last = samples.last(where: { $0.at <= at }) else { return nil }
                let shown = last.shown.map { $0 - (at - last.at) }
                let left = max(seconds - at, floorSeconds), floored = max(shown ?? 0, floorSeconds)
                return (at, shown, last.stage, left, max(floored / left, left / floored))
            }
        }

        var worst: (at: Double, shown: Double?, stage: MigrationProgress.Stage, left: Double, error: Double)? {
            judged.max { $0.error < $1.error }
        }
        var met: Bool { (worst?.error ?? 1) <= goal }

        var text: String {
            guard let worst else {
                return
                    "\(name): no progress was posted after the first fifth of a \(String(format: "%.1f", seconds)) s run"
            }
            return String(
                format:
                    "%@: %@ at %d rows per root entity: %.1f s; worst ETA after the first fifth %.2f× (%@ %.1f s when %.1f s were left, at %.1f s, %@), goal ≤ %.2f×; %d moments judged, every 0.1 s",
                name, summary, rows, seconds, worst.error, worst.shown == nil ? "none shown, floored to" : "shown",
                max(worst.shown ?? 0, floorSeconds), worst.left, worst.at, worst.stage.rawValue, goal, judged.count)
        }

        /// Every post: when, the ETA it carried, its stage (`--stages`).
        var timeline: String {
            samples.map {
                String(
                    format: "  %6.2f s  ETA %@  %@", $0.at, $0.shown.map { String(format: "%5.1f s", $0) } ?? "    –  ",
                    $0.stage.rawValue)
            }
            .joined(separator: "\n")
        }

        var json: String {
            String(
                format: #"{"scenario":"%@","rows":%d,"seconds":%.3f,"worstError":%.3f,"goal":%.2f,"moments":%d}"#,
                name, rows, seconds, worst?.error ?? 1, goal, judged.count)
        }
    }

    /// Makes the source store, then migrates a copy of it once, hearing every progress post.
    static func measure(rows: Int, folder: URL) throws -> Result {
        let bundle = try ModelBundle.read(at: WireUpgrade.bundle)
        guard let model = bundle.version(named: WireUpgrade.version)?.model else {
            throw BenchError("\(bundle.name) has no version \(WireUpgrade.version)")
        }
        let path = folder.appendingPathComponent("wire-eta.wiredatabase").path
        try ScenarioRun.removeStore(path)
        let store = try PersistentStore.create(at: path, model: model)
        try DataGenerator(model: model).fill(store, rows: rows)
        try store.close()
        try ScenarioRun.flush(path)
        defer { try? ScenarioRun.removeStore(path) }
        let plan = try MigrationPlan.make(store: path, bundle: bundle)
        let options = MigrationOptions()
        let samples = SampleLog()
        let started = Date()
        let observation = options.progressChannel.observe { progress in
            samples.add(Sample(at: Date().timeIntervalSince(started), shown: progress.remaining, stage: progress.stage))
        }
        let report = try MigrationRunner.run(plan, store: path, options: options)
        let seconds = Date().timeIntervalSince(started)
        observation.cancel()
        if let backup = report.backup { try? ScenarioRun.removeStore(backup) }
        return Result(rows: rows, seconds: seconds, samples: samples.all)
    }

    /// Samples posted on the engine's thread, read after the run.
    private final class SampleLog: @unchecked Sendable {
        private let lock = NSLock()
        private var samples: [Sample] = []
        func add(_ sample: Sample) { lock.withLock { samples.append(sample) } }
        var all: [Sample] { lock.withLock { samples } }
    }
}
