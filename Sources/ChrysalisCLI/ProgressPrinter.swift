import Foundation
import MigrationEngine
import ObjectModel

/// Prints one migration's progress without a console: one updating line on a terminal, or one
/// line per stage and entity mapping when output goes to a file or pipe (or JSON lines with `--json`).
package final class ProgressPrinter: Sendable {
    private let interactive = isatty(STDERR_FILENO) == 1
    private let json: Bool
    private let observation: ProgressObservation

    /// Prints what `channel` (one migration's) posts, until the printer is released.
    package init(json: Bool, channel: ProgressChannel) {
        self.json = json
        let (interactive, json) = (interactive, json)
        observation = channel.observe { progress in
            if json { Self.printJSON(progress) } else { Self.printLine(progress, interactive: interactive) }
        }
    }

    deinit { observation.cancel() }

    /// One JSON line per progress value, on standard output.
    private static func printJSON(_ progress: MigrationProgress) {
        let fields: [String: Any] = [
            "event": "progress", "step": progress.step, "steps": progress.stepCount,
            "fraction": progress.fraction, "stage": progress.stage.rawValue, "pass": progress.pass,
            "entityMapping": progress.entityMapping ?? NSNull(), "rowsDone": progress.rowsDone,
            "rowsTotal": progress.rowsTotal, "unit": progress.unit.rawValue,
            "rowsPerSecond": Int(progress.rowsPerSecond), "elapsed": (progress.elapsed * 1000).rounded() / 1000,
        ]
        if let data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]) {
            StandardStreams.out(String(decoding: data, as: UTF8.self) + "\n")
        }
    }

    /// The bar, the step, the stage with its own unit and rate, and the ETA, on standard error.
    private static func printLine(_ progress: MigrationProgress, interactive: Bool) {
        let line = TerminalText.oneLine(ProgressLine(progress).text)
        StandardStreams.err((interactive ? "\r\u{1B}[2K\(line)\(progress.stage == .done ? "\n" : "")" : "\(line)\n"))
    }
}

/// One progress value as a line of text: the same words the console and the demo use.
struct ProgressLine {
    let progress: MigrationProgress

    init(_ progress: MigrationProgress) { self.progress = progress }

    /// `█████░░░  42%  step 3/4 BookStore3To4: PublicationToPublication (2/3) create instances 10000/20004 rows  18000 rows/s  ETA 17 s`
    var text: String {
        let percent = Int((progress.fraction * 100).rounded(.down))
        let mapping =
            progress.entityMapping.map { " \($0) (\(progress.entityMappingIndex)/\(progress.entityMappingCount))" }
            ?? ""
        let step = progress.stepCount > 1 ? "step \(progress.step)/\(progress.stepCount) " : ""
        let bar = String(repeating: "█", count: percent / 5) + String(repeating: "░", count: 20 - percent / 5)
        let pass = progress.pass.isEmpty ? "" : progress.pass + ":"
        return
            "\(bar) \(String(format: "%3d", percent))%  \(step)\(pass)\(mapping) \(progress.stage.rawValue)\(amount)\(rate)\(eta)"
    }

    /// `10000/20004 rows`, or `3 tables`, in the stage's own unit.
    private var amount: String {
        guard progress.stage != .done else { return "" }
        if progress.rowsTotal > 0 { return " \(progress.rowsDone)/\(progress.rowsTotal) \(progress.unit.rawValue)" }
        return progress.rowsDone > 0 ? " \(progress.rowsDone) \(progress.unit.rawValue)" : ""
    }

    private var rate: String {
        progress.unit == .rows && progress.rowsPerSecond >= 1 && progress.stage != .done
            ? "  \(Int(progress.rowsPerSecond)) rows/s" : ""
    }

    private var eta: String {
        progress.remaining.map { "  ETA \(Int($0.rounded(.up))) s" } ?? ""
    }
}
