import Foundation

/// The self-pipe that wakes the UI thread's `poll()`: signal handlers and the engine's thread
/// write a byte, the UI reads them all. Both ends are non-blocking; closed when the console ends.
final class WakePipe {
    let read: Int32, write: Int32

    /// A new pipe, or nil when the process has no descriptors left.
    init?() {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return nil }
        (read, write) = (fds[0], fds[1])
        _ = fcntl(read, F_SETFL, O_NONBLOCK)
        _ = fcntl(write, F_SETFL, O_NONBLOCK)
    }

    /// Reads every waiting byte.
    func drain() {
        var sink = [UInt8](repeating: 0, count: 64)
        while Foundation.read(read, &sink, sink.count) > 0 {}
    }

    /// Closes both ends (after nothing can write to it any more).
    func close() {
        _ = Foundation.close(read)
        _ = Foundation.close(write)
    }
}
