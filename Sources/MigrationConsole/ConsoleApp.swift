import CTerminalShim
import Foundation
import MigrationEngine
import ObjectModel

/// The console's loop (DESIGN §6, the `poll()` design): the UI thread waits on the keyboard and a
/// wake-up pipe, never busy-waits, and is the only one to touch ncurses or the state. The engine
/// runs the whole plan on its own thread; its progress (on the migration's own channel), each
/// finished step and its end land in a mailbox and wake the UI.
package final class ConsoleApp {
    /// How the console ended.
    package enum Outcome: Sendable, Equatable {
        case quit, failed(String), cancelled, hungUp
        /// Done: a line for the scrollback saying so (the versions, the time, where the original is).
        case migrated(String)

        /// Whether the plan ran to its end.
        package var isMigrated: Bool { if case .migrated = self { true } else { false } }
    }

    /// Called on the engine's thread after each step with the store at the step's version; does
    /// whatever the caller must do there and returns what the step's result pane shows; it tells
    /// the screen what it is doing through `note` (say, `the demo's own work: rows 20000/100000`).
    package typealias Showcase = @Sendable (CompletedStep, _ note: (String) -> Void) throws -> [StepResult.Table]

    /// What the console opens on: the bundle, the plan, and why the plan cannot run, if it cannot.
    package struct Opening: Sendable {
        package var bundle: ModelBundle, plan: MigrationPlan, blocked: Blocked?

        /// What the console opens on.
        package init(bundle: ModelBundle, plan: MigrationPlan, blocked: Blocked?) {
            (self.bundle, self.plan, self.blocked) = (bundle, plan, blocked)
        }
    }

    private var state: ConsoleState
    private let terminal: TerminalAdapter
    private let store: String
    private var plan: MigrationPlan
    /// Set once the opening has been worked out: whether to start at once, in step mode.
    private var startOnOpening: (start: Bool, stepMode: Bool) = (false, false)
    /// Why the opening could not be worked out, to throw once the terminal is restored.
    private var openingError: (any Error)?
    private let options: MigrationOptions
    private let showcase: Showcase?
    private let gate = StepGate()
    private let wake: WakePipe
    private let mailbox: EngineMailbox
    /// The process's log lines while the console is open, for its live log (`v`).
    private var logFeed: ConsoleLogFeed?
    private var engineRunning = false
    /// Left while the SQL compiles after the first frame; a run waits for it first (the
    /// compile's read transaction must not meet the run's writes).
    private let compiling = DispatchGroup()
    private var hungUp = false
    /// SIGTERM or SIGQUIT came during a run: the console exits once the rollback has ended.
    private var quitWhenStopped = false
    private var outcome: Outcome = .quit
    /// When the newest progress value arrived, for the clock between two of them.
    private var progressArrived = Date()

    private init(
        state: ConsoleState, terminal: TerminalAdapter, wake: WakePipe, store: String, plan: MigrationPlan,
        options: MigrationOptions,
        showcase: Showcase?
    ) {
        (self.state, self.terminal, self.wake, self.store, self.plan, self.options) = (
            state, terminal, wake, store, plan, options
        )
        self.showcase = showcase
        mailbox = EngineMailbox(wake: wake.write)
    }

    /// Opens the console on `store` at once, drawing its first frame while `opening` reads the
    /// bundle and works out the plan on a thread of its own (an 84-step plan takes seconds);
    /// returns nil when there is no usable terminal. Throws what `opening` threw, once the
    /// terminal is restored. The lines given to `log` are its live log (`v`).
    package static func run(
        store: String, opening: @escaping @Sendable () throws -> Opening, options: MigrationOptions,
        stepMode: Bool = false, startImmediately: Bool = false, autoAdvance: Double? = nil, showcase: Showcase? = nil,
        log: ConsoleLogFeed? = nil
    ) throws -> Outcome? {
        cs_unblock_signals()
        guard let terminal = TerminalAdapter() else { return nil }
        defer { close(terminal) }
        guard let wake = WakePipe() else { return .failed("cannot create the wake-up pipe") }
        cs_install_signal_handlers(wake.write)
        log?.wake(through: wake.write)
        // Nothing writes to the pipe once it is closed (its descriptor may be reused).
        defer { log?.wake(through: nil); cs_uninstall_signal_handlers(); wake.close() }
        let size = terminal.size
        var state = ConsoleState(
            storeName: URL(fileURLWithPath: store).lastPathComponent, bundleName: "", storeVersion: "",
            targetVersion: "", versions: [], steps: [], width: size.width, height: size.height,
            glyphs: terminal.unicode ? .unicode : .ascii)
        state.opening = "Reading the model bundle and working out the plan…"
        state.run.stepMode = stepMode
        state.run.autoAdvance = autoAdvance
        state.overlays.log = LogView(isOn: log != nil)
        let app = ConsoleApp(
            state: state, terminal: terminal, wake: wake, store: store, plan: .none(from: "", to: ""),
            options: options, showcase: showcase)
        app.startOnOpening = (startImmediately, stepMode)
        app.logFeed = log
        let mailbox = app.mailbox
        let thread = Thread {
            mailbox.post(opened: Result { try opening() })
        }
        thread.name = "chrysalis.console.opening"
        thread.start()
        app.loop()
        if let error = app.openingError { throw error }
        return app.outcome
    }

    /// Gives the terminal back, saying so when it drew with another type than TERM named.
    private static func close(_ terminal: TerminalAdapter) {
        terminal.close()
        guard let fallback = terminal.fallback else { return }
        FileHandle.standardError.write(
            Data(
                """
                note: TERM=\(fallback.term) has no terminfo entry on this machine; the console drew as \
                \(fallback.used)\n
                """
                .utf8))
    }

    /// The opening is worked out: the console's state for it, its SQL compiled after, and the
    /// run started if it was asked for.
    private func opened(_ result: Result<Opening, any Error>) {
        switch result {
        case .failure(let error):
            openingError = error
            state.quit = true
        case .success(let opening):
            plan = opening.plan
            var next = ConsoleState(
                store: store, bundle: opening.bundle, plan: opening.plan, options: options, width: state.width,
                height: state.height, glyphs: state.glyphs, compilingSQL: false)
            (next.run.stepMode, next.run.autoAdvance, next.overlays.log) = (
                state.run.stepMode, state.run.autoAdvance, state.overlays.log
            )
            if let blocked = opening.blocked { next.block(blocked) }
            state = next
            compileSQL()
            if startOnOpening.start { perform(state.reduce(.key(.character(startOnOpening.stepMode ? "s" : "m")))) }
        }
    }

    /// Opens the console on `store`; returns nil when there is no usable terminal (the caller
    /// then runs headless). Signal handlers and the wake-up pipe live exactly as long as the call.
    package static func run(
        store: String, bundle: ModelBundle, plan: MigrationPlan, options: MigrationOptions, stepMode: Bool = false,
        startImmediately: Bool = false, autoAdvance: Double? = nil, showcase: Showcase? = nil,
        blocked: Blocked? = nil
    ) -> Outcome? {
        // The opening is at hand: the console that works one out, given it. (It cannot throw.)
        try? run(
            store: store, opening: { Opening(bundle: bundle, plan: plan, blocked: blocked) }, options: options,
            stepMode: stepMode, startImmediately: startImmediately, autoAdvance: autoAdvance, showcase: showcase)
    }

    private func loop() {
        let observation = options.progressChannel.observe { [mailbox] progress in mailbox.post(progress: progress) }
        defer { observation.cancel() }
        var lastWake = Date()
        while true {
            if !hungUp { terminal.draw(Screens.render(state)) }
            if (state.quit || hungUp) && !engineRunning { break }
            // After a hang-up stdin is gone: wait on the pipe only. While the engine runs, wake
            // each second too, so elapsed time and the ETA move through a long statement.
            var descriptors = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            if !hungUp { descriptors.append(pollfd(fd: 0, events: Int16(POLLIN), revents: 0)) }
            _ = poll(&descriptors, nfds_t(descriptors.count), engineRunning ? 1000 : -1)
            // A terminal that went away without SIGHUP reaching us shows up as a hang-up on stdin.
            if !hungUp, descriptors[1].revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { handleHangUp() }
            wake.drain()
            // The clocks leave out time spent waiting on a person, and time the process was
            // stopped (Ctrl-Z): while the engine runs the loop wakes each second, so a longer gap
            // is a stop.
            let now = Date(), gap = now.timeIntervalSince(lastWake)
            lastWake = now
            if engineRunning, state.isWaitingOnPerson {
                _ = state.reduce(.pauseTime(seconds: gap))
            } else if engineRunning, gap > Self.stopGap {
                _ = state.reduce(.pauseTime(seconds: gap - 1))
            }
            handleSignals(cs_take_signals())
            drainMailbox()
            advanceByItself(now)
            if engineRunning { _ = state.reduce(.tick(seconds: Date().timeIntervalSince(progressArrived))) }
            if !hungUp {
                let size = terminal.size
                if size.width != state.width || size.height != state.height {
                    perform(state.reduce(.resize(width: size.width, height: size.height)))
                }
                for key in terminal.keys() { perform(state.reduce(.key(key))) }
            }
        }
    }

    private func handleSignals(_ signals: Int32) {
        if signals & Int32(CS_SIGNAL_RESIZE) != 0 { terminal.refreshSize() }
        if signals & Int32(CS_SIGNAL_HANGUP) != 0 { handleHangUp() }
        // Ctrl-C is a key like x: it asks before a run is thrown away (a terminal in cbreak mode
        // sends it as SIGINT rather than as a character).
        if signals & Int32(CS_SIGNAL_INTERRUPT) != 0 {
            if engineRunning { perform(state.reduce(.key(.interrupt))) } else { state.quit = true }
        }
        // SIGTERM and SIGQUIT come from outside: roll back, then exit.
        if signals & Int32(CS_SIGNAL_TERMINATE | CS_SIGNAL_QUIT) != 0 {
            if engineRunning { quitWhenStopped = true; perform([.cancelMigration]) } else { state.quit = true }
        }
    }

    /// The terminal is gone: the migration finishes (or rolls back) and a report is written.
    private func handleHangUp() {
        guard !hungUp else { return }
        hungUp = true
        gate.open(toEnd: true)
        if !engineRunning { outcome = .hungUp; state.quit = true }
    }

    private func drainMailbox() {
        let contents = mailbox.take()
        if let lines = logFeed?.take(), !lines.isEmpty { _ = state.reduce(.logged(lines)) }
        if let opening = contents.opened { opened(opening) }
        if let progress = contents.progress {
            progressArrived = Date()
            _ = state.reduce(.progress(progress))
        }
        for event in contents.events { _ = state.reduce(event) }
        guard let done = contents.done else { return }
        engineRunning = false
        _ = state.reduce(done)
        switch done {
        case .finished(let done):
            let backup = done.backup.map { "; the original is kept as \($0)" } ?? ""
            let drops = state.run.results.flatMap(\.dropped)
            let lost = drops.isEmpty ? "" : " " + Self.lossLine(drops)
            let seconds = state.run.outcome?.seconds ?? done.seconds, paused = state.run.outcome?.pausedSeconds ?? 0
            let pauses = paused >= 0.5 ? " (paused \(Int(paused.rounded())) s apart)" : ""
            outcome =
                hungUp
                ? .hungUp
                : .migrated(
                    """
                    Migrated \(store) from \(done.from) to \(done.to) in \(String(format: "%.1f", seconds)) \
                    s\(pauses)\(backup).\(lost)
                    """
                )
        case .failed(let message):
            outcome = hungUp ? .hungUp : (options.cancellation.isCancelled ? .cancelled : .failed(message))
        default: break
        }
        if hungUp { HangUpReport(store: store, results: state.run.results).write(done, stoppedAt: contents.stoppedAt) }
        if quitWhenStopped { state.quit = true }
    }

    /// When the current pause began, for the auto-advance.
    private var pauseBegan: Date?

    /// A demo's auto-advance: a step-mode pause nobody has touched goes on after its seconds.
    private func advanceByItself(_ now: Date) {
        let paused: Bool
        switch state.mode {
        case .paused, .pausedAfterStep: paused = true;
        default: paused = false
        }
        guard let seconds = state.run.autoAdvance, paused, !state.run.autoAdvanceStopped, !state.overlays.help else {
            // A stopped countdown starts afresh when `a` starts it again.
            pauseBegan = paused ? now : nil
            state.run.autoAdvanceIn = nil
            return
        }
        let began = pauseBegan ?? now
        pauseBegan = began
        let left = seconds - now.timeIntervalSince(began)
        state.run.autoAdvanceIn = max(left, 0)
        if left <= 0 {
            pauseBegan = nil
            state.run.autoAdvanceIn = nil
            perform(state.reduce(.key(.enter)))
            state.run.autoAdvanceStopped = false
        }
    }

    /// A gap between two wakes of the loop longer than this, while the engine runs, is time the
    /// process was stopped: the loop wakes at least each second.
    static let stopGap: TimeInterval = 2.5

    /// The scrollback's word on what the plan dropped: `Dropped, as planned: 120003 rows of 2
    /// entities (PersonalInvitation, FeatureFlag) and 58 properties or links.`
    static func lossLine(_ drops: [StepResult.Drop]) -> String {
        let entities = drops.filter(\.isEntity), others = drops.count - entities.count
        var parts: [String] = []
        if !entities.isEmpty {
            let rows = entities.compactMap(\.rows).reduce(0, +)
            parts.append(
                """
                \(rows) row\(rows == 1 ? "" : "s") of \(entities.count) entit\(entities.count == 1 ? "y" : "ies") \
                (\(entities.map(\.what).joined(separator: ", ")))
                """
            )
        }
        if others > 0 { parts.append(others == 1 ? "1 property or link" : "\(others) properties or links") }
        return "Dropped, as planned: " + parts.joined(separator: " and ") + "."
    }

    private func perform(_ effects: [ConsoleEffect]) {
        for effect in effects {
            switch effect {
            case .startMigration(let stepMode): start(stepMode: stepMode)
            case .resumeStep(let toEnd): gate.open(toEnd: toEnd)
            case .cancelMigration:
                options.cancellation.cancel()
                gate.open(toEnd: true)
            case .copy(let text): terminal.copy(text)
            case .quit: break
            }
        }
    }

    /// Compiles every step's SQL on a thread of its own, after the first frame is drawn.
    private func compileSQL() {
        let (plan, store, options, mailbox, compiling) = (plan, store, options, mailbox, compiling)
        compiling.enter()
        let thread = Thread {
            let (steps, problem) = ConsoleState.compiledSQL(plan, store: store, options: options)
            mailbox.post(event: .sqlCompiled(steps, problem: problem))
            compiling.leave()
        }
        thread.name = "chrysalis.console.sql"
        thread.start()
    }

    private func start(stepMode: Bool) {
        guard !engineRunning else { return }
        compiling.wait()
        engineRunning = true
        progressArrived = Date()
        var options = self.options
        let (mailbox, gate, showcase, cancellation) = (self.mailbox, self.gate, self.showcase, options.cancellation)
        if stepMode {
            options.pauseAfterEntityMapping = { report in
                guard !gate.runsToEnd else { return }
                mailbox.post(event: .paused(report))
                gate.wait()
            }
        }
        options.afterStep = { done in
            mailbox.post(event: .stepVerified(done.index))
            let result = StepResult(done, tables: try showcase?(done) { mailbox.post(event: .gathering($0)) } ?? [])
            let pauses = stepMode && !done.isLast && !gate.runsToEnd
            mailbox.post(event: .stepDone(result, paused: pauses))
            if pauses { gate.wait() }
            try cancellation.check()
        }
        let (plan, store, prepared) = (self.plan, self.store, options)
        let thread = Thread {
            let (done, stoppedAt) = Self.migrate(plan, store: store, options: prepared)
            mailbox.post(done: done, stoppedAt: stoppedAt)
        }
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Runs the plan on the engine's thread and says how it ended, as the UI's last action.
    private static func migrate(_ plan: MigrationPlan, store: String, options: MigrationOptions) -> (
        ConsoleAction, StoreState?
    ) {
        let started = Date()
        do {
            let report = try MigrationRunner.run(plan, store: store, options: options)
            let before = report.rowsBefore, after = report.rowsAfter
            let rows = Set(before.keys).union(after.keys).sorted().map {
                (entity: $0, before: before[$0], after: after[$0])
            }
            return (
                .finished(
                    ConsoleState.Outcome(
                        from: plan.storeVersion, to: plan.targetVersion, rows: rows, backup: report.backup,
                        seconds: Date().timeIntervalSince(started))), nil
            )
        } catch {
            return (.failed("\(error)"), (error as? MigrationError)?.state)
        }
    }
}
