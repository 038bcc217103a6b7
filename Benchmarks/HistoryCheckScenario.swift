import Foundation
import MigrationEngine
import ObjectModel

/// Issue 32 §5: `chrysalis check-history` on Wire's whole history (every version's store made,
/// migrated straight to the current version and checked row by row), timed as a user runs it.
/// Goal: under 3 minutes on 2 cores (BENCHMARKS.md names the machine its figure ran on).
enum HistoryCheckScenario {
    static let name = "check-history"
    static let summary = "chrysalis check-history on Wire's every version, straight to the current one"
    static let goal = Scenario.Goal.seconds(180)

    struct Result {
        let seconds: [Double]
        let versions: Int
        let failed: [String]

        var medianSeconds: Double { median(seconds) }
        var text: String {
            String(
                format: "%@ (%@): %d versions in %.1f s (median of %d), %@; goal %@", name, summary, versions,
                medianSeconds, seconds.count,
                failed.isEmpty ? "all ok" : "\(failed.count) failed: \(failed.prefix(3).joined(separator: ", "))",
                goal.description)
        }
        var json: String {
            String(
                format: #"{"scenario":"%@","versions":%d,"seconds":%.3f,"failed":%d,"rounds":%d}"#, name, versions,
                medianSeconds, failed.count, seconds.count)
        }
    }

    /// Runs the whole check `rounds` times, each in a fresh folder under `folder`.
    static func measure(rounds: Int, folder: URL) throws -> Result {
        let bundle = try ModelBundle.read(at: WireUpgrade.bundle)
        var seconds: [Double] = []
        var outcomes: [HistoryCheck.Outcome] = []
        for round in 0..<rounds {
            let directory = folder.appendingPathComponent("check-history-\(round)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let started = Date()
            outcomes = HistoryCheck(bundle: bundle).run(in: directory)
            seconds.append(Date().timeIntervalSince(started))
        }
        return Result(seconds: seconds, versions: outcomes.count, failed: outcomes.filter { !$0.ok }.map(\.version))
    }
}
