import CTerminalShim
import Foundation
import MigrationEngine

#if canImport(Glibc)
    import Glibc
#endif

/// Turns Ctrl-C (SIGINT), SIGTERM, Ctrl-\ (SIGQUIT) and a closed terminal (SIGHUP) into a
/// cancellation: the migration stops at its next chunk and rolls back instead of dying half way.
///
/// The handlers only set a flag and write a byte to a pipe (async-signal-safe, in C); a thread
/// started here, before any work, reads the pipe and cancels. No signal waits for a thread to
/// start: under a tight memory limit (`ulimit -v`) libdispatch can start none, and a signal
/// source on a dispatch queue was never heard. A second signal at least
/// ``secondSignalGrace`` seconds after the first, while the run has still not stopped, stops
/// the process at once, as a kill does, saying what that leaves (``stuckMessage``).
package final class SignalCancellation: @unchecked Sendable {
    /// How long a run may take to stop in order before a second signal stops it at once.
    static let secondSignalGrace: TimeInterval = 3
    private var pipe: (read: Int32, write: Int32) = (-1, -1)
    private var thread: Thread?

    /// Cancels `token` on a signal; `stuckMessage` says what stopping at once leaves.
    package init(token: CancellationToken, stuckMessage: @escaping @Sendable () -> String = { "nothing was written" }) {
        var fds: [Int32] = [0, 0]
        guard Glibc.pipe(&fds) == 0 else { return }
        pipe = (fds[0], fds[1])
        let readEnd = fds[0]
        let thread = Thread {
            var first: Date?
            var byte: UInt8 = 0
            while Glibc.read(readEnd, &byte, 1) != 0 {
                let signals = cs_take_signals()
                guard signals & ~Int32(CS_SIGNAL_RESIZE) != 0 else { continue }
                if let first, Date().timeIntervalSince(first) >= Self.secondSignalGrace {
                    let text =
                        """
                        \nchrysalis: stopped at once on a second signal, as a kill would (the first could not be \
                        acted on): \(stuckMessage())\n
                        """
                    _ = text.withCString { Glibc.write(2, $0, strlen($0)) }
                    _exit(signals & Int32(CS_SIGNAL_TERMINATE) != 0 ? 143 : 130)
                }
                first = first ?? Date()
                token.cancel()
            }
            close(readEnd)
        }
        thread.stackSize = 256 * 1024
        thread.start()
        self.thread = thread
        cs_install_signal_handlers(fds[1])
    }

    /// Hands the signals back to their earlier handlers (the next stage installs its own) and
    /// ends the thread.
    package func stop() {
        guard pipe.write >= 0 else { return }
        cs_uninstall_signal_handlers()
        close(pipe.write)
        pipe = (-1, -1)
    }

    deinit { stop() }
}
