import Foundation
import MigrationEngine
import Synchronization

/// What the engine's thread hands the UI thread: the newest progress (older ones are dropped:
/// only the newest is drawn), every finished step's result and step-mode pause in order, and the
/// end. Posting writes a byte to the wake-up pipe; the UI drains it all at once.
final class EngineMailbox: Sendable {
    /// Everything not yet taken by the UI.
    struct Contents {
        var progress: MigrationProgress?
        var events: [ConsoleAction] = []
        var done: ConsoleAction?
        /// Where a failed migration left the store, in the engine's words.
        var stoppedAt: StoreState?
        /// The bundle and plan the console opens on, worked out after its first frame.
        var opened: Result<ConsoleApp.Opening, any Error>?
    }

    private let contents = Mutex(Contents())
    private let wake: Int32

    /// A mailbox that wakes the UI through `wake` (the write end of its pipe).
    init(wake: Int32) { self.wake = wake }

    /// Keeps `progress` as the newest, replacing any the UI has not drawn yet.
    func post(progress: MigrationProgress) {
        contents.withLock { $0.progress = progress }
        ring()
    }

    /// Queues an event the UI must see (a step's result, a pause).
    func post(event: ConsoleAction) {
        contents.withLock { $0.events.append(event) }
        ring()
    }

    /// The migration's end (and, when it failed, where it left the store).
    func post(done: ConsoleAction, stoppedAt: StoreState? = nil) {
        contents.withLock { ($0.done, $0.stoppedAt) = (done, stoppedAt) }
        ring()
    }

    /// The opening, worked out (or why it could not be).
    func post(opened: Result<ConsoleApp.Opening, any Error>) {
        contents.withLock { $0.opened = opened }
        ring()
    }

    /// Everything posted since the last call.
    func take() -> Contents {
        contents.withLock { contents in
            defer { contents = Contents() }
            return contents
        }
    }

    private func ring() {
        var byte: UInt8 = 1
        _ = write(wake, &byte, 1)
    }
}

/// Step mode's gate: the engine waits on it after each entity mapping and each step.
final class StepGate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let toEnd = Mutex(false)

    /// Whether the engine should stop pausing (run to the end, cancelled, or hung up).
    var runsToEnd: Bool { toEnd.withLock { $0 } }

    /// Lets the engine go on; with `toEnd`, through every later pause too.
    func open(toEnd: Bool) {
        if toEnd { self.toEnd.withLock { $0 = true } }
        semaphore.signal()
    }

    /// Called on the engine's thread: waits until the UI opens the gate, unless it runs to the end.
    func wait() {
        guard !runsToEnd else { return }
        semaphore.wait()
    }
}
