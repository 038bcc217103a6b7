import CTerminalShim
import Foundation
import MigrationEngine
import ObjectModel
import Synchronization

/// The console's loop (DESIGN §6, the `poll()` design): the UI thread waits on the keyboard and a
/// wake-up pipe, never busy-waits, and is the only one to touch ncurses or the state. The engine
/// runs on its own thread; its progress notifications land in a mailbox and wake the UI, which
/// keeps only the newest.
public final class ConsoleApp {
    /// How the console ended.
    public enum Outcome: Sendable, Equatable {
        case quit, migrated, failed(String), cancelled, hungUp
    }

    /// What the engine hands the UI thread.
    private final class Mailbox: Sendable {
        struct Contents {
            var progress: MigrationProgress?
            var paused: StepReport?
            var done: ConsoleAction?
        }
        let contents = Mutex(Contents())
    }

    /// Step mode's gate: the engine waits on it after each entity mapping.
    private final class StepGate: Sendable {
        let semaphore = DispatchSemaphore(value: 0)
        let toEnd = Mutex(false)
    }

    private var state: ConsoleState
    private let terminal: TerminalAdapter
    private let store: String
    private let plan: MigrationPlan
    private let options: MigrationOptions
    private let mailbox = Mailbox()
    private let gate = StepGate()
    private let cancellation: CancellationToken
    private var wakeRead: Int32 = -1, wakeWrite: Int32 = -1
    private var engineRunning = false
    private var hungUp = false
    private var outcome: Outcome = .quit

    private init(state: ConsoleState, terminal: TerminalAdapter, store: String, plan: MigrationPlan, options: MigrationOptions) {
        self.state = state
        self.terminal = terminal
        self.store = store
        self.plan = plan
        self.options = options
        cancellation = options.cancellation
    }

    /// Opens the console on `store`; returns nil when there is no usable terminal (the caller
    /// then runs headless).
    public static func run(store: String, bundle: ModelBundle, plan: MigrationPlan, options: MigrationOptions, stepMode: Bool = false,
                           startImmediately: Bool = false) -> Outcome? {
        cs_unblock_signals()
        guard let terminal = TerminalAdapter() else { return nil }
        let size = terminal.size
        var state = ConsoleState(store: store, bundle: bundle, plan: plan, width: size.width, height: size.height,
                                 glyphs: terminal.unicode ? .unicode : .ascii)
        state.stepMode = stepMode
        let app = ConsoleApp(state: state, terminal: terminal, store: store, plan: plan, options: options)
        defer { terminal.close() }
        guard app.openWakePipe() else { return .failed("cannot create the wake-up pipe") }
        if startImmediately { app.perform(app.state.reduce(.key(.character(stepMode ? "s" : "m")))) }
        app.loop()
        return app.outcome
    }

    /// The wake-up pipe must exist before anything (a migration started at once) can write to it.
    private func openWakePipe() -> Bool {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return false }
        (wakeRead, wakeWrite) = (fds[0], fds[1])
        _ = fcntl(wakeRead, F_SETFL, O_NONBLOCK)
        _ = fcntl(wakeWrite, F_SETFL, O_NONBLOCK)
        cs_install_signal_handlers(wakeWrite)
        return true
    }

    private func loop() {
        let observer = NotificationCenter.default.addObserver(forName: MigrationProgress.notification, object: nil, queue: nil) { [mailbox, wakeWrite] note in
            guard let progress = note.userInfo?["progress"] as? MigrationProgress else { return }
            mailbox.contents.withLock { $0.progress = progress }
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        while true {
            if !hungUp { terminal.draw(Screens.render(state)) }
            if state.quit && !engineRunning { break }
            if hungUp && !engineRunning { break }
            // After a hang-up stdin is gone: wait on the pipe only.
            var descriptors = hungUp ? [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
                : [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0), pollfd(fd: 0, events: Int16(POLLIN), revents: 0)]
            _ = poll(&descriptors, nfds_t(descriptors.count), -1)
            // A terminal that went away without SIGHUP reaching us shows up as a hang-up on stdin.
            if !hungUp, descriptors[1].revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { handleHangUp() }
            var sink = [UInt8](repeating: 0, count: 64)
            while read(wakeRead, &sink, sink.count) > 0 {}
            handleSignals(cs_take_signals())
            drainMailbox()
            if !hungUp {
                let size = terminal.size
                if size.width != state.width || size.height != state.height { perform(state.reduce(.resize(width: size.width, height: size.height))) }
                for key in terminal.keys() { perform(state.reduce(.key(key))) }
            }
        }
    }

    private func handleSignals(_ signals: Int32) {
        if signals & Int32(CS_SIGNAL_RESIZE) != 0 { terminal.refreshSize() }
        if signals & Int32(CS_SIGNAL_HANGUP) != 0 { handleHangUp() }
        if signals & Int32(CS_SIGNAL_INTERRUPT | CS_SIGNAL_TERMINATE | CS_SIGNAL_QUIT) != 0 {
            if engineRunning { perform([.cancelMigration]) } else { state.quit = true }
        }
    }

    /// The terminal is gone: the migration finishes (or rolls back) and a report is written.
    private func handleHangUp() {
        guard !hungUp else { return }
        hungUp = true
        gate.toEnd.withLock { $0 = true }
        gate.semaphore.signal()
        if !engineRunning { outcome = .hungUp; state.quit = true }
    }

    private func drainMailbox() {
        let contents = mailbox.contents.withLock { contents -> Mailbox.Contents in
            let taken = contents
            contents = Mailbox.Contents()
            return taken
        }
        if let progress = contents.progress { _ = state.reduce(.progress(progress)) }
        if let report = contents.paused { _ = state.reduce(.paused(report)) }
        if let done = contents.done {
            engineRunning = false
            _ = state.reduce(done)
            switch done {
            case .finished: outcome = hungUp ? .hungUp : .migrated
            case .failed(let message): outcome = hungUp ? .hungUp : (cancellation.isCancelled ? .cancelled : .failed(message))
            default: break
            }
            if hungUp { writeReport(done) }
        }
    }

    private func perform(_ effects: [ConsoleEffect]) {
        for effect in effects {
            switch effect {
            case .startMigration(let stepMode): start(stepMode: stepMode)
            case .resumeStep(let toEnd):
                if toEnd { gate.toEnd.withLock { $0 = true } }
                gate.semaphore.signal()
            case .cancelMigration:
                cancellation.cancel()
                gate.toEnd.withLock { $0 = true }
                gate.semaphore.signal()
            case .quit: break
            }
        }
    }

    private func start(stepMode: Bool) {
        guard !engineRunning else { return }
        engineRunning = true
        var options = self.options
        let (mailbox, gate, wakeWrite) = (self.mailbox, self.gate, self.wakeWrite)
        if stepMode {
            options.pauseAfterEntityMapping = { report in
                guard !gate.toEnd.withLock({ $0 }) else { return }
                mailbox.contents.withLock { $0.paused = report }
                var byte: UInt8 = 1
                _ = write(wakeWrite, &byte, 1)
                gate.semaphore.wait()
            }
        }
        let (plan, store) = (self.plan, self.store)
        // The options (with the caller's manager set-up closure) move to the engine thread, which alone uses them.
        let carried = UncheckedBox(options)
        let thread = Thread {
            let options = carried.value
            let started = Date()
            let action: ConsoleAction
            do {
                let report = try MigrationRunner.run(plan, store: store, options: options)
                let before = report.rowsBefore, after = report.rowsAfter
                let rows = Set(before.keys).union(after.keys).sorted().map { (entity: $0, before: before[$0], after: after[$0]) }
                action = .finished(ConsoleState.Outcome(from: plan.storeVersion, to: plan.targetVersion, rows: rows, backup: report.backup,
                                                        seconds: Date().timeIntervalSince(started)))
            } catch {
                action = .failed("\(error)")
            }
            mailbox.contents.withLock { $0.done = action }
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// After a hang-up nobody sees the screen: what happened goes to a file beside the store.
    private func writeReport(_ done: ConsoleAction) {
        var lines = ["Chrysalis migration report", "store: \(store)", "date: \(ISO8601DateFormatter().string(from: Date()))",
                     "the terminal closed (SIGHUP) while the migration ran; it was allowed to finish or roll back"]
        switch done {
        case .finished(let outcome):
            lines.append("result: migrated \(outcome.from) → \(outcome.to) in \(String(format: "%.2f", outcome.seconds)) s")
            lines += outcome.rows.map { "  \($0.entity): \($0.before.map(String.init) ?? "—") → \($0.after.map(String.init) ?? "—")" }
            if let backup = outcome.backup { lines.append("backup: \(backup)") }
        case .failed(let message):
            lines.append("result: not migrated; the store is as it was")
            lines.append("reason: \(message)")
        default: break
        }
        try? (lines.joined(separator: "\n") + "\n").write(toFile: store + ".chrysalis-report.txt", atomically: true, encoding: .utf8)
    }
}

/// Hands a value to exactly one other thread that alone uses it from then on.
private final class UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
