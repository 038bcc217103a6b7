import Foundation
import MigrationEngine

/// What watching a migration costs: the same migration (scenario 3's mapping step) with an
/// observer of every progress notification — as the console and the CLI's bar are — and with
/// none, back to back in pairs (alternating which goes first); the median of the pairs' differences.
enum ProgressOverhead {
    /// One run's wall-clock seconds and the process's CPU seconds (all threads).
    struct Timing {
        var wall = 0.0, cpu = 0.0
    }

    struct Result {
        let rows: Int
        /// Each pair of runs, one without an observer and one with, back to back.
        let pairs: [(unobserved: Timing, observed: Timing)]
        let notifications: Int

        /// Each pair's extra time as a fraction of its unobserved run: pairing cancels the
        /// machine's drift between pairs, which on a shared VM is larger than what is measured.
        func overheads(_ time: KeyPath<Timing, Double>) -> [Double] {
            pairs.map { $0.observed[keyPath: time] / max($0.unobserved[keyPath: time], 1e-9) - 1 }
        }
        var overhead: Double { median(overheads(\.wall)) }

        var text: String {
            let wall = overheads(\.wall), cpu = overheads(\.cpu)
            return String(
                format:
                    "progress: %@ at %d rows per root entity: unobserved %.3f s, observed %.3f s (medians; %d notifications per run), overhead %+.1f%% (median of %d pairs, from %+.1f%% to %+.1f%%; CPU time %+.1f%%; target ≤ 3%%)",
                Scenario.compiledTransform.name, rows, median(pairs.map(\.unobserved.wall)),
                median(pairs.map(\.observed.wall)), notifications,
                overhead * 100, pairs.count, (wall.min() ?? 0) * 100, (wall.max() ?? 0) * 100, median(cpu) * 100)
        }

        var json: String {
            String(
                format:
                    #"{"scenario":"progress","rows":%d,"unobservedSeconds":%.4f,"observedSeconds":%.4f,"notifications":%d,"overhead":%.4f,"pairs":%d,"overheadMin":%.4f,"overheadMax":%.4f,"cpuOverhead":%.4f}"#,
                rows, median(pairs.map(\.unobserved.wall)), median(pairs.map(\.observed.wall)), notifications, overhead,
                pairs.count,
                overheads(\.wall).min() ?? 0, overheads(\.wall).max() ?? 0, median(overheads(\.cpu)))
        }
    }

    /// Pairs run at the least: a 3% difference cannot be told from noise of 10% in 3 samples.
    static let minimumPairs = 9

    /// Counts what the observer sees; touching each value keeps the work honest.
    private final class Counter: @unchecked Sendable {
        let lock = NSLock()
        var count = 0, fractionSum = 0.0
    }

    /// Runs `max(rounds, minimumPairs)` pairs, alternating which of each pair goes first.
    static func measure(rows: Int, rounds: Int, folder: URL) throws -> Result {
        let rounds = max(rounds, minimumPairs)
        let scenario = Scenario.compiledTransform
        let source = folder.appendingPathComponent("progress-source.sqlite").path
        let copy = folder.appendingPathComponent("progress-run.sqlite").path
        try ScenarioRun.removeStore(source)
        try scenario.prepare(source, rows)
        defer { try? ScenarioRun.removeStore(source); try? ScenarioRun.removeStore(copy) }
        var pairs: [(unobserved: Timing, observed: Timing)] = []
        let counter = Counter()
        for round in 0..<rounds {
            var pair = (unobserved: Timing(), observed: Timing())
            for watched in round % 2 == 0 ? [false, true] : [true, false] {
                try ScenarioRun.removeStore(copy)
                try FileManager.default.copyItem(atPath: source, toPath: copy)
                try ScenarioRun.flush(copy)
                // Every channel (object: nil): the bench runs one migration at a time, whichever channel it posts on.
                let observer =
                    watched
                    ? NotificationCenter.default.addObserver(
                        forName: MigrationProgress.notification, object: nil, queue: nil
                    ) { note in
                        guard let progress = note.migrationProgress else { return }
                        counter.lock.withLock {
                            counter.count += 1; counter.fractionSum += progress.fraction
                        }
                    } : nil
                let started = Date(), cpuStarted = ProcessUsage.cpuSeconds()
                try scenario.chrysalis(copy)
                let timing = Timing(
                    wall: Date().timeIntervalSince(started), cpu: ProcessUsage.cpuSeconds() - cpuStarted)
                observer.map(NotificationCenter.default.removeObserver)
                if watched { pair.observed = timing } else { pair.unobserved = timing }
            }
            pairs.append(pair)
        }
        guard counter.count > 0 else { throw BenchError("the observer saw no progress notifications") }
        return Result(rows: rows, pairs: pairs, notifications: counter.count / rounds)
    }
}
