import Foundation
import ObjectModel
import Synchronization

/// A count on standard error ("generating rows: 4000/20000"), at most five times a second: one
/// line redrawn on a terminal, a line per count in a file or pipe. For work that is slow and has
/// no progress channel of its own (generating rows, a demo's own queries).
package final class CounterLine: Sendable {
    private let interactive = isatty(STDERR_FILENO) == 1
    private let lastReported = Mutex(Date.distantPast)

    package init() {}

    /// Shows `done` of `total`; the last count (done == total) is always shown.
    package func show(_ label: String, _ done: Int, _ total: Int) {
        let now = Date()
        guard
            lastReported.withLock({ last in
                guard done == total || now.timeIntervalSince(last) > 0.2 else { return false }
                last = now
                return true
            })
        else { return }
        let line = TerminalText.oneLine("\(label): \(done)/\(total)")
        StandardStreams.err((interactive ? "\r\u{1B}[2K\(line)" + (done == total ? "\n" : "") : line + "\n"))
    }
}
