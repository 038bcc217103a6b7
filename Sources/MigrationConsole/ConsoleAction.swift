import MigrationEngine

/// A key the console understands, decoded by the terminal adapter.
package enum Key: Equatable, Sendable {
    /// `halfPageDown` and `halfPageUp` are Ctrl-D and Ctrl-U, as in less, vim and lazygit.
    case up, down, left, right, pageUp, pageDown, halfPageUp, halfPageDown, home, end, tab, backTab, enter, escape,
        backspace, character(
            Character), interrupt
    /// The mouse at a cell: the wheel scrolls what is under it, a click selects a tab or a row.
    case mouse(MouseEvent, x: Int, y: Int)

    /// What the mouse did.
    package enum MouseEvent: Equatable, Sendable { case wheelUp, wheelDown, click }
}

/// Something that happens to the console: a key, a resize, or news from the engine.
package enum ConsoleAction: Sendable {
    case key(Key)
    case resize(width: Int, height: Int)
    case progress(MigrationProgress)
    case paused(StepReport)
    /// A step of the plan is done and verified; what it shows is being gathered (a caller's
    /// showcase may do its own work there, as the demo does).
    case stepVerified(Int)
    /// What the showcase is doing after the verified step, in a few words that it updates (the
    /// demo counts the rows of its own work), so the screen never sits still under it.
    case gathering(String)
    /// Every step's SQL, compiled after the first frame (or why it could not be).
    case sqlCompiled([ConsoleState.StepSQL], problem: String?)
    /// A step of the plan is done (in step mode the engine then waits).
    case stepDone(StepResult, paused: Bool)
    /// The UI's clock: `seconds` have passed since the last progress value arrived.
    case tick(seconds: Double)
    /// `seconds` went by with the migration waiting on a person (a step-mode pause, a cancel
    /// question over one) or with the process stopped (Ctrl-Z): no clock counts them.
    case pauseTime(seconds: Double)
    case finished(ConsoleState.Outcome)
    case failed(String)
    /// Lines the process logged since the last wake-up, for the live log (`v`).
    case logged([String])
}

/// What the reducer asks the app to do; the reducer itself never does anything.
package enum ConsoleEffect: Equatable, Sendable {
    case startMigration(stepMode: Bool)
    case resumeStep(toEnd: Bool)
    case cancelMigration
    /// Put the text on the clipboard of the terminal, wherever it is (OSC 52: over SSH too).
    case copy(String)
    case quit
}

extension ConsoleState {
    /// Applies `action` and returns what the app must do.
    package mutating func reduce(_ action: ConsoleAction) -> [ConsoleEffect] {
        switch action {
        case .resize(let width, let height):
            self.width = width
            self.height = height
            if var view = overlays.sql {
                view.top = min(view.top, SQLScreen.lastTop(self, step: view.step))
                overlays.sql = view
            }
        case .progress, .tick, .pauseTime, .stepVerified, .gathering:
            run.reduce(action)
        case .logged(let lines):
            overlays.log.append(lines)
        case .paused(let report):
            // A pause that comes while the user is asked to confirm a cancel waits behind the question.
            if mode == .confirmingCancel {
                pausedBeforeConfirming = .paused(report)
            } else if mode != .cancelling {
                mode = .paused(report)
                pane.top = 0
            }
        case .sqlCompiled(let steps, let problem): (sql, sqlProblem, sqlPending) = (steps, problem, false)
        case .stepDone(let result, let paused):
            stepDone(result, paused: paused)
        case .finished(let outcome):
            finish(outcome)
        case .failed(let message):
            mode = .failed(message)
            screen = .migrate
        case .key(let key):
            return press(key)
        }
        return []
    }

    /// A step is done: its result kept, its pauses said apart from its time, and step mode's
    /// pause after it shown (behind a cancel being confirmed, if one is).
    private mutating func stepDone(_ result: StepResult, paused: Bool) {
        run.keep(result)
        selection[Screen.migrate.rawValue] = run.results.count - 1
        if paused && mode == .confirmingCancel {
            pausedBeforeConfirming = .pausedAfterStep(result.index)
        } else if paused && mode != .cancelling {
            mode = .pausedAfterStep(result.index)
            pane.top = 0
        }
    }

    /// The plan is done: the outcome without its pauses, and the store at the target now (the
    /// Versions screen and the title say so).
    private mutating func finish(_ outcome: Outcome) {
        run.finish(outcome)
        for index in versions.indices { versions[index].isStore = versions[index].name == outcome.to }
        migratedFrom = storeVersion
        storeVersion = outcome.to
        mode = .finished
        screen = .migrate
    }

    /// The mouse while a run, help or a prompt is over the screen: only help's wheel scrolls it,
    /// as the arrows do; a run's screen is not a list to look around in.
    private mutating func mouseOverlaid(_ event: Key.MouseEvent) -> [ConsoleEffect] {
        if overlays.help, event != .click { for _ in 0..<3 { _ = readHelp(event == .wheelUp ? .up : .down) } }
        if overlays.log.isShown, !overlays.help, event != .click {
            for _ in 0..<3 { _ = readLog(event == .wheelUp ? .up : .down) }
        }
        return []
    }

    /// A key in a step-mode pause: Enter or `n` goes on, `c` runs to the end, `x` asks to cancel,
    /// the scroll keys move the pause's pane. Any key stops a demo's auto-advance; `a` starts it again.
    private mutating func pressWhilePaused(_ key: Key) -> [ConsoleEffect] {
        if run.autoAdvance != nil {
            if key == .character("a") { run.autoAdvanceStopped.toggle(); return [] }
            run.autoAdvanceStopped = true
        }
        if scrollPause(key) { return [] }
        switch key {
        case .enter, .character("n"): mode = .migrating; return [.resumeStep(toEnd: false)]
        case .character("c"): mode = .migrating; run.stepMode = false; return [.resumeStep(toEnd: true)]
        case .character("x"), .interrupt:
            pausedBeforeConfirming = mode
            mode = .confirmingCancel
            return []
        default: run.ignoredKeys += 1; return []
        }
    }

    /// The scroll keys while a step-mode pause is shown (after an entity mapping, or after a
    /// step with its result): its pane moves, never past its last line.
    private mutating func scrollPause(_ key: Key) -> Bool {
        guard
            let top = Self.scrolled(
                pane.top, by: key, last: MigrateScreen.pauseLastTop(self), page: MigrateScreen.paneArea(self).height - 2
            )
        else { return false }
        pane.top = top
        return true
    }

    /// Before the plan is there, a key can only quit.
    private mutating func pressWhileOpening(_ key: Key) -> [ConsoleEffect] {
        guard [.character("q"), .escape, .interrupt].contains(key) else { return [] }
        quit = true
        return [.quit]
    }

    private mutating func press(_ key: Key) -> [ConsoleEffect] {
        if opening != nil { return pressWhileOpening(key) }
        // The mouse looks around only: during a run it is not a key to be told is ignored.
        if case .mouse(let event, _, _) = key, isBusy || overlays.help || overlays.log.isShown || find.prompt != nil {
            return mouseOverlaid(event)
        }
        // Help opens anywhere, a migration going on under it, and scrolls; another key closes it
        // and does what it does.
        if overlays.help {
            if readHelp(key) { return [] }
            overlays.help = false
        } else if key == .character("?"), mode != .confirmingCancel, find.prompt == nil {
            overlays.help = true
            overlays.helpTop = 0
            return []
        }
        // The log opens the same way, over any screen, a migration going on under it.
        if overlays.log.isShown {
            if readLog(key) { return [] }
            overlays.log.isShown = false
        } else if key == .character("v"), mode != .confirmingCancel, find.prompt == nil {
            openLog()
            return []
        }
        switch mode {
        case .migrating:
            if key == .interrupt || key == .character("x") {
                mode = .confirmingCancel
            } else {
                run.ignoredKeys += 1
            }
            return []
        case .confirmingCancel:
            if key == .character("y") { mode = .cancelling; return [.cancelMigration] }
            // "Keep going" resumes what was going on: a paused step mode stays paused.
            if key == .character("n") || key == .escape {
                mode = pausedBeforeConfirming ?? .migrating; pausedBeforeConfirming = nil
            }
            return []
        case .cancelling:
            run.ignoredKeys += 1
            return []
        case .paused, .pausedAfterStep:
            return pressWhilePaused(key)
        case .browsing, .finished, .failed:
            return browse(key)
        }
    }

    private mutating func browse(_ key: Key) -> [ConsoleEffect] {
        if takenByWhatIsOpen(key) { return [] }
        let before = (screen, selection[screen.rawValue])
        defer {
            // A pane shows the selected row's details from their start, and gives the keys back
            // when its screen is left.
            if before.0 != screen { pane.focused = false }
            if before != (screen, selection[screen.rawValue]) { pane.top = 0 }
        }
        if switchScreen(key) || moveSelection(key) || startFinding(key) { return [] }
        switch key {
        case .interrupt:
            quit = true
            return [.quit]
        case .character("q"):
            // `q` closes what is open (the SQL view, a filter) and quits only from the top.
            if overlays.sql != nil, screen == .plan { overlays.sql = nil; return [] }
            if (screen == .plan && find.planFilter != nil) || (screen == .model && find.modelFilter != nil) {
                goBack()
                return []
            }
            quit = true
            return [.quit]
        case .escape:
            goBack()
        case .character("l"):
            if Panes.pane(self) != nil { pane.focused = true }
        case .character("r") where screen == .migrate && mode == .finished:
            pane.showsAllRows.toggle()
            pane.top = 0
        case .enter where screen == .versions:
            screen = .model
            selection[Screen.model.rawValue] = 0
        case .enter where screen == .plan:
            if let step = selectedPlanStep { overlays.sql = SQLView(step: step) }
        case .enter:
            if Panes.pane(self) != nil { pane.focused = true }
        case .character("m"), .character("s"):
            return startMigration(stepMode: key == .character("s"))
        case .character("y"):
            return copySelected()
        default:
            break
        }
        return []
    }

    /// `m` or `s`: the migration starts, unless the plan cannot run, whose reason is then shown
    /// where it is said, the Plan screen's first line.
    private mutating func startMigration(stepMode: Bool) -> [ConsoleEffect] {
        guard mode == .browsing else { return [] }
        guard blocked == nil else {
            screen = .plan
            selection[Screen.plan.rawValue] = 0
            return []
        }
        guard !steps.isEmpty else { return [] }
        run.stepMode = stepMode
        mode = .migrating
        screen = .migrate
        run.ignoredKeys = 0
        run.results = []
        return [.startMigration(stepMode: stepMode)]
    }

    /// What is open takes the key first: the search being typed, the SQL view, the mouse, a
    /// focused pane. Whether one of them took it.
    private mutating func takenByWhatIsOpen(_ key: Key) -> Bool {
        if find.prompt == nil { find.missed = nil; find.note = nil }
        if find.prompt != nil {
            typeSearch(key)
            return true
        }
        if screen == .plan, overlays.sql != nil, readSQL(key) { return true }
        if case .mouse(let event, let x, let y) = key {
            mouse(event, x: x, y: y)
            return true
        }
        return pane.focused && scrollPane(key)
    }

    /// `/` starts a search, `f` a filter (on Plan and Model), `n`/`N` find the last search's
    /// next or previous match; whether `key` was one of them.
    private mutating func startFinding(_ key: Key) -> Bool {
        switch key {
        case .character("f") where screen == .plan || screen == .model:
            // A new filter, as `/` starts a new search: what is typed is never added to the last one.
            find.prompt = ""
            find.isFilter = true
        case .character("/"):
            find.prompt = ""
            find.isFilter = false
        case .character("n") where find.last != nil, .character("N") where find.last != nil:
            find(find.last ?? "", forward: key == .character("n"))
        default: return false
        }
        return true
    }

    /// Esc goes back: from the SQL view to the plan, from a filtered plan to the whole plan,
    /// from a filtered model to the whole model, from a version's model to the versions.
    private mutating func goBack() {
        if overlays.sql != nil, screen == .plan {
            overlays.sql = nil
        } else if screen == .plan, find.planFilter != nil {
            find.planFilter = nil
            selection[screen.rawValue] = 0
        } else if screen == .model, find.modelFilter != nil {
            find.modelFilter = nil
            selection[screen.rawValue] = 0
        } else if screen == .model {
            screen = .versions
        }
    }

    /// Tab and →, Shift-Tab and ←, and `1`–`5` change the screen; whether `key` was one of them.
    private mutating func switchScreen(_ key: Key) -> Bool {
        let count = Screen.allCases.count
        switch key {
        case .tab, .right: screen = Screen(rawValue: (screen.rawValue + 1) % count) ?? .versions
        case .backTab, .left: screen = Screen(rawValue: (screen.rawValue + count - 1) % count) ?? .versions
        case .character(let digit) where ("1"..."5").contains(digit):
            screen = Screen(rawValue: Int(String(digit))! - 1) ?? screen
        default: return false
        }
        return true
    }

    /// j/k and the arrows, PgUp/PgDn, Ctrl-D/Ctrl-U, g/G and Home/End move the screen's
    /// selection, and on the Plan screen `[`/`]` go to the previous (or this line's) and the next
    /// step's heading; whether `key` was one of them.
    private mutating func moveSelection(_ key: Key) -> Bool {
        let last = max(rowCount - 1, 0), now = selection[screen.rawValue]
        switch key {
        case .down, .character("j"): selection[screen.rawValue] = min(now + 1, last)
        case .up, .character("k"): selection[screen.rawValue] = max(now - 1, 0)
        case .pageDown: selection[screen.rawValue] = min(now + pageRows, last)
        case .pageUp: selection[screen.rawValue] = max(now - pageRows, 0)
        case .halfPageDown: selection[screen.rawValue] = min(now + max(pageRows / 2, 1), last)
        case .halfPageUp: selection[screen.rawValue] = max(now - max(pageRows / 2, 1), 0)
        case .character("]") where screen == .plan && !steps.isEmpty:
            let step = min((planLines.indices.contains(now) ? planLines[now].step : -1) + 1, steps.count - 1)
            selection[screen.rawValue] = planLine(ofStep: step)
        case .character("[") where screen == .plan && !steps.isEmpty:
            let line = planLines.indices.contains(now) ? planLines[now] : nil
            let step = max((line?.step ?? 0) - (line?.isHeading == false ? 0 : 1), 0)
            selection[screen.rawValue] = planLine(ofStep: step)
        case .home, .character("g"): selection[screen.rawValue] = 0
        case .end, .character("G"): selection[screen.rawValue] = last
        default: return false
        }
        return true
    }
}
