import Foundation
import Synchronization

/// The live log (`v`): what `--verbose` or `CHRYSALIS_LOG` prints, the engine's decisions and
/// every SQL statement, shown over the console rather than written over its screen. It keeps the
/// newest lines (a long run logs a statement per chunk) and follows the end, as `tail -f` does,
/// until it is scrolled.
package struct LogView: Equatable, Sendable {
    /// The newest lines, oldest first.
    package private(set) var lines: [String] = []
    /// How many older lines were let go to keep at most ``limit``.
    package private(set) var forgotten = 0
    /// Whether the console was opened with a log: without one, `v` says how to get it.
    package var isOn = false
    /// Whether the log is drawn over the screen.
    package var isShown = false
    /// The first row shown; nil follows the newest line.
    package var top: Int?

    /// The most lines kept.
    static let limit = 5000

    /// A log that is on when `isOn`.
    package init(isOn: Bool = false) { self.isOn = isOn }

    /// Adds `new` at the end, letting the oldest go past ``limit``.
    mutating func append(_ new: [String]) {
        lines.append(contentsOf: new)
        let extra = lines.count - Self.limit
        guard extra > 0 else { return }
        lines.removeFirst(extra)
        forgotten += extra
        if let shown = top { top = max(shown - extra, 0) }
    }

    /// The log's rows at `width`: each line wrapped (what goes on indented), so a long
    /// statement is read whole.
    func rows(width: Int) -> [String] {
        lines.flatMap { line in
            MigrateScreen.wrap(line, width: max(width - 2, 1)).enumerated().map {
                $0.offset == 0 ? $0.element : "  " + $0.element
            }
        }
    }
}

/// Where the process's log goes while the console is open: the command line's log handler
/// hands each line here (from any thread), and the UI takes them at its next wake-up.
package final class ConsoleLogFeed: Sendable {
    private let pending = Mutex<(lines: [String], wake: Int32?)>(([], nil))

    /// A feed no console reads yet: lines wait for one.
    package init() {}

    /// Queues `line` and wakes the console, if one is open.
    package func append(_ line: String) {
        // A statement's own line breaks would be drawn as `\n`: one line of the log is one line.
        let line = line.split(whereSeparator: \.isNewline).joined(separator: " ")
        let wake = pending.withLock { pending in
            pending.lines.append(line)
            if pending.lines.count > LogView.limit { pending.lines.removeFirst(pending.lines.count - LogView.limit) }
            return pending.wake
        }
        guard let wake else { return }
        var byte: UInt8 = 1
        _ = write(wake, &byte, 1)
    }

    /// The console's wake-up pipe (its write end), or nil once the pipe is closing.
    func wake(through descriptor: Int32?) { pending.withLock { $0.wake = descriptor } }

    /// Every line queued since the last call.
    func take() -> [String] {
        pending.withLock { pending in
            defer { pending.lines = [] }
            return pending.lines
        }
    }
}
