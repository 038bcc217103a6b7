import Foundation
import MigrationEngine

/// What watching a migration costs: the same migration (scenario 3's mapping step) with an
/// observer of every progress notification — as the console and the CLI's bar are — and with
/// none, alternating, medians of the rounds.
enum ProgressOverhead {
    struct Result {
        let rows: Int
        let unobserved: Double, observed: Double
        let notifications: Int
        var overhead: Double { observed / max(unobserved, 1e-9) - 1 }

        var text: String {
            String(format: "progress: %@ at %d rows per root entity: unobserved %.3f s, observed %.3f s (%d notifications per run), overhead %+.1f%% (target ≤ 3%%)",
                   Scenario.compiledTransform.name, rows, unobserved, observed, notifications, overhead * 100)
        }

        var json: String {
            String(format: #"{"scenario":"progress","rows":%d,"unobservedSeconds":%.4f,"observedSeconds":%.4f,"notifications":%d,"overhead":%.4f}"#,
                   rows, unobserved, observed, notifications, overhead)
        }
    }

    /// Counts what the observer sees; touching each value keeps the work honest.
    private final class Counter: @unchecked Sendable {
        let lock = NSLock()
        var count = 0, fractionSum = 0.0
    }

    static func measure(rows: Int, rounds: Int, folder: URL) throws -> Result {
        let scenario = Scenario.compiledTransform
        let source = folder.appendingPathComponent("progress-source.sqlite").path
        let copy = folder.appendingPathComponent("progress-run.sqlite").path
        try ScenarioRun.removeStore(source)
        try scenario.prepare(source, rows)
        defer { try? ScenarioRun.removeStore(source); try? ScenarioRun.removeStore(copy) }
        var unobserved: [Double] = [], observed: [Double] = []
        let counter = Counter()
        for round in 0..<rounds {
            for watched in round % 2 == 0 ? [false, true] : [true, false] {
                try ScenarioRun.removeStore(copy)
                try FileManager.default.copyItem(atPath: source, toPath: copy)
                try ScenarioRun.flush(copy)
                let observer = watched ? NotificationCenter.default.addObserver(forName: MigrationProgress.notification, object: nil, queue: nil) { note in
                    guard let progress = note.userInfo?["progress"] as? MigrationProgress else { return }
                    counter.lock.withLock { counter.count += 1; counter.fractionSum += progress.fraction }
                } : nil
                let started = Date()
                try scenario.chrysalis(copy)
                let seconds = Date().timeIntervalSince(started)
                observer.map(NotificationCenter.default.removeObserver)
                if watched { observed.append(seconds) } else { unobserved.append(seconds) }
            }
        }
        guard counter.count > 0 else { throw BenchError("the observer saw no progress notifications") }
        return Result(rows: rows, unobserved: median(unobserved), observed: median(observed), notifications: counter.count / rounds)
    }
}
