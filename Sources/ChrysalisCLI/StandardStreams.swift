import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Standard output and error, written so that a reader that goes away never stops a migration
/// half way. `chrysalis migrate --json | head -1` closes the pipe after the first event: by
/// default SIGPIPE would kill the process between two steps, and Foundation's `FileHandle.write`
/// traps on the failed write. Here SIGPIPE is ignored, a failed write is remembered, and the run
/// goes on to its end (done, or rolled back); ``sayIfOutputWasLost(_:)`` then says on standard
/// error what the closed output missed.
package enum StandardStreams {
    private static let closed = Mutex(false)

    /// Ignores SIGPIPE and SIGXFSZ for the whole process: a closed pipe or a file size limit is a
    /// failed write, never a kill.
    package static func keepRunningOnFailedWrites() {
        signal(SIGPIPE, SIG_IGN)
        // Likewise a file size limit: a write past it fails (and the step rolls back, saying so)
        // instead of the kernel killing the process half way.
        signal(SIGXFSZ, SIG_IGN)
    }

    /// Writes `text` to standard output; a write that fails is remembered, never fatal.
    package static func out(_ text: String) {
        write(text, to: STDOUT_FILENO, remembering: true)
    }

    /// Writes `text` to standard error.
    package static func err(_ text: String) {
        write(text, to: STDERR_FILENO, remembering: false)
    }

    /// Whether a write to standard output failed (the reader went away).
    package static var outputWasLost: Bool {
        closed.withLock { $0 }
    }

    /// Says on standard error, when standard output was closed before the end, what happened
    /// all the same: `outcome` is the run's last word (migrated, rolled back).
    package static func sayIfOutputWasLost(_ outcome: String) {
        guard outputWasLost else { return }
        err(
            "note: standard output was closed before the end (the reader of a pipe quit); the run went on: \(outcome)\n"
        )
    }

    private static func write(_ text: String, to descriptor: Int32, remembering: Bool) {
        // Anything `print` buffered goes first, in order.
        fflush(nil)
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                if remembering { closed.withLock { $0 = true } }
                return
            }
            bytes = bytes.dropFirst(count)
        }
    }
}
