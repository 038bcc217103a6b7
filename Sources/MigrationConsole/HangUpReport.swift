import Foundation
import MigrationEngine

/// What a migration whose terminal went away did, written beside the store
/// (`Name.sqlite.chrysalis-report.txt`): nobody saw the screen, so the file says where the store stands.
struct HangUpReport {
    let store: String
    let results: [StepResult]

    /// Writes the report for how the migration ended (`stoppedAt`: where a failure left the store).
    func write(_ done: ConsoleAction, stoppedAt: StoreState?) {
        var lines = [
            "Chrysalis migration report", "store: \(store)", "date: \(ISO8601DateFormatter().string(from: Date()))",
            "the terminal closed (SIGHUP) while the migration ran; it was allowed to finish or roll back",
        ]
        switch done {
        case .finished(let outcome):
            lines.append(
                "result: migrated \(outcome.from) → \(outcome.to) in \(String(format: "%.2f", outcome.seconds)) s")
            lines += results.map {
                "  step \($0.index): \($0.from) → \($0.to) (\($0.how)), \(String(format: "%.2f", $0.seconds)) s"
            }
            lines += outcome.rows.map {
                "  \($0.entity): \($0.before.map(String.init) ?? "—") → \($0.after.map(String.init) ?? "—")"
            }
            if let backup = outcome.backup { lines.append("backup: \(backup)") }
        case .failed(let message):
            switch stoppedAt {
            case .unchanged(let version)?, .restored(let version)?:
                lines.append("result: not migrated; the store is as it was, at \(version)")
            case let state?: lines.append("result: not migrated; \(state.sentence)")
            case nil: lines.append("result: not migrated; the reason says where the store stands")
            }
            lines.append("reason: \(message)")
        default: break
        }
        try? (lines.joined(separator: "\n") + "\n").write(
            toFile: store + ".chrysalis-report.txt", atomically: true, encoding: .utf8)
    }
}
