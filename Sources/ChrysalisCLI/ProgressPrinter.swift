import Foundation
import MigrationEngine

/// Prints migration progress without a console: one updating line on a terminal, or one line per
/// stage and entity mapping when output goes to a file or pipe (or JSON lines with `--json`).
final class ProgressPrinter: @unchecked Sendable {
    private var observer: NSObjectProtocol?
    private let interactive = isatty(STDERR_FILENO) == 1
    private let json: Bool

    init(json: Bool) {
        self.json = json
        observer = NotificationCenter.default.addObserver(forName: MigrationProgress.notification, object: nil, queue: nil) { [weak self] note in
            guard let progress = note.userInfo?["progress"] as? MigrationProgress else { return }
            self?.show(progress)
        }
    }

    deinit { observer.map(NotificationCenter.default.removeObserver) }

    private func show(_ progress: MigrationProgress) {
        let percent = Int((progress.fraction * 100).rounded(.down))
        if json {
            let fields: [String: Any] = ["event": "progress", "step": progress.step, "steps": progress.stepCount,
                                         "fraction": progress.fraction, "stage": progress.stage.rawValue, "pass": progress.pass,
                                         "entityMapping": progress.entityMapping ?? NSNull(), "rowsDone": progress.rowsDone,
                                         "rowsTotal": progress.rowsTotal, "rowsPerSecond": Int(progress.rowsPerSecond),
                                         "elapsed": (progress.elapsed * 1000).rounded() / 1000]
            if let data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]) {
                FileHandle.standardOutput.write(data + Data("\n".utf8))
            }
            return
        }
        let mapping = progress.entityMapping.map { " \($0) (\(progress.entityMappingIndex)/\(progress.entityMappingCount))" } ?? ""
        let step = progress.stepCount > 1 ? "step \(progress.step)/\(progress.stepCount) " : ""
        let rate = progress.rowsPerSecond >= 1 ? "  \(Int(progress.rowsPerSecond)) rows/s" : ""
        let eta = progress.fraction > 0.02 && progress.fraction < 1 ? "  ETA \(Int((progress.elapsed * (1 - progress.fraction) / progress.fraction).rounded(.up))) s" : ""
        let moving = progress.stage == .createInstances || progress.stage == .createRelationships
        let rows = moving && progress.rowsTotal > 0 ? " \(progress.rowsDone)/\(progress.rowsTotal) rows" : ""
        let bar = String(repeating: "█", count: percent / 5) + String(repeating: "░", count: 20 - percent / 5)
        let line = "\(bar) \(String(format: "%3d", percent))%  \(step)\(progress.pass.isEmpty ? "" : progress.pass + ":")\(mapping) \(progress.stage.rawValue)\(rows)\(rate)\(eta)"
        if interactive {
            FileHandle.standardError.write(Data("\r\u{1B}[2K\(line)\(progress.stage == .done ? "\n" : "")".utf8))
        } else {
            FileHandle.standardError.write(Data("\(line)\n".utf8))
        }
    }
}
