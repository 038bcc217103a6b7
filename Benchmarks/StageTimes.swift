import Foundation
import MigrationEngine

/// Where one Chrysalis run spends its time, from the progress notifications every stage change
/// posts (`--stages`): the gap between one stage's start and the next is that stage's time.
final class StageTimes: @unchecked Sendable {
    private let lock = NSLock()
    private var marks: [(label: String, at: Date)] = []
    private var observer: NSObjectProtocol?

    /// Starts recording; the run's first notification marks its start.
    func start() {
        let started = Date()
        lock.withLock { marks = [("before the first stage", started)] }
        // Every channel (object: nil): the bench runs one migration at a time, whichever channel it posts on.
        observer = NotificationCenter.default.addObserver(
            forName: MigrationProgress.notification, object: nil, queue: nil
        ) { [weak self] note in
            guard let self, let progress = note.migrationProgress else { return }
            let label =
                "step \(progress.step) \(progress.stage.rawValue)" + (progress.entityMapping.map { " \($0)" } ?? "")
            self.lock.withLock { if self.marks.last?.label != label { self.marks.append((label, Date())) } }
        }
    }

    /// Stops recording and returns one line per stage with its seconds, the run's end included.
    func stop() -> [String] {
        let ended = Date()
        if let observer { NotificationCenter.default.removeObserver(observer) }
        observer = nil
        return lock.withLock {
            zip(marks, marks.dropFirst().map(\.at) + [ended]).map { mark, next in
                String(format: "  %8.3f s  %@", next.timeIntervalSince(mark.at), mark.label)
            }
        }
    }
}
