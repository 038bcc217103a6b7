import MigrationEngine

/// A key the console understands, decoded by the terminal adapter.
public enum Key: Equatable, Sendable {
    case up, down, left, right, pageUp, pageDown, home, end, tab, backTab, enter, escape, backspace, character(Character), interrupt
    /// The mouse at a cell: the wheel scrolls what is under it, a click selects a tab or a row.
    case mouse(MouseEvent, x: Int, y: Int)

    /// What the mouse did.
    public enum MouseEvent: Equatable, Sendable { case wheelUp, wheelDown, click }
}

/// Something that happens to the console: a key, a resize, or news from the engine.
public enum ConsoleAction: Sendable {
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
    /// A step of the plan is done (in step mode the engine then waits).
    case stepDone(StepResult, paused: Bool)
    /// The UI's clock: `seconds` have passed since the last progress value arrived.
    case tick(seconds: Double)
    /// `seconds` went by with the migration waiting on a person (a step-mode pause, a cancel
    /// question over one) or with the process stopped (Ctrl-Z): no clock counts them.
    case pauseTime(seconds: Double)
    case finished(ConsoleState.Outcome)
    case failed(String)
}

/// What the reducer asks the app to do; the reducer itself never does anything.
public enum ConsoleEffect: Equatable, Sendable {
    case startMigration(stepMode: Bool)
    case resumeStep(toEnd: Bool)
    case cancelMigration
    case quit
}

extension ConsoleState {
    /// Applies `action` and returns what the app must do.
    public mutating func reduce(_ action: ConsoleAction) -> [ConsoleEffect] {
        switch action {
        case .resize(let width, let height):
            self.width = width
            self.height = height
            if var view = sqlView {
                view.top = min(view.top, SQLScreen.lastTop(self, step: view.step))
                sqlView = view
            }
            return []
        case .progress(let progress):
            self.progress = progress
            progressAge = 0
            if progress.step != gatheringStep { gatheringStep = nil }
            return []
        case .tick(let seconds):
            progressAge = seconds
            return []
        case .pauseTime(let seconds):
            pausedSeconds += seconds
            stepPausedSeconds += seconds
            return []
        case .paused(let report):
            // A pause that comes while the user is asked to confirm a cancel waits behind the question.
            if mode == .confirmingCancel { pausedBeforeConfirming = .paused(report) } else if mode != .cancelling { mode = .paused(report) }
            return []
        case .stepVerified(let index):
            gatheringStep = index
            gatheringNote = nil
            return []
        case .gathering(let note):
            gatheringNote = note
            return []
        case .stepDone(var result, let paused):
            gatheringStep = nil
            // The step's own clock ran through its pauses: they are said apart, not counted.
            result.seconds = max(result.seconds - stepPausedSeconds, 0)
            result.pausedSeconds = stepPausedSeconds
            stepPausedSeconds = 0
            results.append(result)
            selection[Screen.migrate.rawValue] = results.count - 1
            if paused && mode == .confirmingCancel {
                pausedBeforeConfirming = .pausedAfterStep(result.index)
            } else if paused && mode != .cancelling {
                mode = .pausedAfterStep(result.index)
            }
            return []
        case .finished(var outcome):
            outcome.seconds = max(outcome.seconds - pausedSeconds, 0)
            outcome.pausedSeconds = pausedSeconds
            self.outcome = outcome
            // The store is at the target now: the Versions screen and the title say so.
            for index in versions.indices { versions[index].isStore = versions[index].name == outcome.to }
            migratedFrom = storeVersion
            storeVersion = outcome.to
            mode = .finished
            screen = .migrate
            return []
        case .failed(let message):
            mode = .failed(message)
            screen = .migrate
            return []
        case .key(let key):
            return press(key)
        }
    }

    private mutating func press(_ key: Key) -> [ConsoleEffect] {
        // The mouse looks around only: during a run it is not a key to be told is ignored.
        if case .mouse = key, isBusy || showHelp || search != nil { return [] }
        // Help opens anywhere, a migration going on under it, and scrolls; another key closes it
        // and does what it does.
        if showHelp {
            if readHelp(key) { return [] }
            showHelp = false
        } else if key == .character("?"), mode != .confirmingCancel, search == nil {
            showHelp = true
            helpTop = 0
            return []
        }
        switch mode {
        case .migrating:
            if key == .interrupt || key == .character("x") {
                mode = .confirmingCancel
            } else {
                ignoredKeys += 1
            }
            return []
        case .confirmingCancel:
            if key == .character("y") { mode = .cancelling; return [.cancelMigration] }
            // "Keep going" resumes what was going on: a paused step mode stays paused.
            if key == .character("n") || key == .escape { mode = pausedBeforeConfirming ?? .migrating; pausedBeforeConfirming = nil }
            return []
        case .cancelling:
            ignoredKeys += 1
            return []
        case .paused, .pausedAfterStep:
            // Any key stops a demo's auto-advance; `a` starts it again.
            if autoAdvance != nil {
                if key == .character("a") { autoAdvanceStopped.toggle(); return [] }
                autoAdvanceStopped = true
            }
            switch key {
            case .enter, .character("n"): mode = .migrating; return [.resumeStep(toEnd: false)]
            case .character("c"): mode = .migrating; stepMode = false; return [.resumeStep(toEnd: true)]
            case .character("x"), .interrupt:
                pausedBeforeConfirming = mode
                mode = .confirmingCancel
                return []
            default: ignoredKeys += 1; return []
            }
        case .browsing, .finished, .failed:
            return browse(key)
        }
    }

    private mutating func browse(_ key: Key) -> [ConsoleEffect] {
        if search == nil { searchMissed = nil }
        if search != nil {
            typeSearch(key)
            return []
        }
        if screen == .plan, sqlView != nil, readSQL(key) { return [] }
        if case .mouse(let event, let x, let y) = key {
            mouse(event, x: x, y: y)
            return []
        }
        if paneFocused, scrollPane(key) { return [] }
        let before = (screen, selection[screen.rawValue])
        defer {
            // A pane shows the selected row's details from their start, and gives the keys back
            // when its screen is left.
            if before.0 != screen { paneFocused = false }
            if before != (screen, selection[screen.rawValue]) { paneTop = 0 }
        }
        switch key {
        case .interrupt:
            quit = true
            return [.quit]
        case .character("q"):
            // `q` closes what is open (the SQL view) and quits only from the top.
            if sqlView != nil, screen == .plan { sqlView = nil; return [] }
            quit = true
            return [.quit]
        case .escape:
            // Esc goes back: from the SQL view to the plan, from a filtered plan to the whole
            // plan, from a version's model to the versions.
            if sqlView != nil, screen == .plan { sqlView = nil }
            else if screen == .plan, planFilter != nil { planFilter = nil; selection[screen.rawValue] = 0 }
            else if screen == .model, modelFilter != nil { modelFilter = nil; selection[screen.rawValue] = 0 }
            else if screen == .model { screen = .versions }
        case .character("f") where screen == .plan || screen == .model:
            search = (screen == .plan ? planFilter : modelFilter) ?? ""
            searchIsFilter = true
        case .character("/"):
            search = ""
            searchIsFilter = false
        case .character("n") where lastSearch != nil, .character("N") where lastSearch != nil:
            find(lastSearch ?? "", forward: key == .character("n"))
        case .tab, .right:
            screen = Screen(rawValue: (screen.rawValue + 1) % Screen.allCases.count) ?? .versions
        case .backTab, .left:
            screen = Screen(rawValue: (screen.rawValue + Screen.allCases.count - 1) % Screen.allCases.count) ?? .versions
        case .character(let digit) where ("1"..."5").contains(digit):
            screen = Screen(rawValue: Int(String(digit))! - 1) ?? screen
        case .character("l"):
            if Panes.pane(self) != nil { paneFocused = true }
        case .character("r") where screen == .migrate && mode == .finished:
            showsAllRows.toggle()
            paneTop = 0
        case .down, .character("j"):
            selection[screen.rawValue] = min(selection[screen.rawValue] + 1, max(rowCount - 1, 0))
        case .up, .character("k"):
            selection[screen.rawValue] = max(selection[screen.rawValue] - 1, 0)
        case .pageDown:
            selection[screen.rawValue] = min(selection[screen.rawValue] + pageRows, max(rowCount - 1, 0))
        case .pageUp:
            selection[screen.rawValue] = max(selection[screen.rawValue] - pageRows, 0)
        case .home, .character("g"):
            selection[screen.rawValue] = 0
        case .end, .character("G"):
            selection[screen.rawValue] = max(rowCount - 1, 0)
        case .enter where screen == .versions:
            screen = .model
            selection[Screen.model.rawValue] = 0
        case .enter where screen == .plan:
            if let step = selectedPlanStep { sqlView = SQLView(step: step) }
        case .enter:
            if Panes.pane(self) != nil { paneFocused = true }
        case .character("m"), .character("s"):
            guard mode == .browsing, !steps.isEmpty else { return [] }
            stepMode = key == .character("s")
            mode = .migrating
            screen = .migrate
            ignoredKeys = 0
            results = []
            return [.startMigration(stepMode: stepMode)]
        default:
            break
        }
        return []
    }

    /// The mouse: a click on a tab opens its screen; over a pane the wheel scrolls it and a click
    /// gives it the keys; over a list (or a step's SQL) the wheel moves three rows and a click
    /// selects the row under it.
    private mutating func mouse(_ event: Key.MouseEvent, x: Int, y: Int) {
        if y == 1, event == .click {
            var left = 1
            for tab in Screen.allCases {
                let width = tab.title.count + 2
                if x >= left && x < left + width { screen = tab; paneFocused = false; return }
                left += width + 1
            }
            return
        }
        if screen == .plan, sqlView != nil {
            if event != .click { for _ in 0..<3 { _ = readSQL(event == .wheelUp ? .up : .down) } }
            return
        }
        if let pane = Panes.pane(self), x >= pane.area.x - 1 {
            switch event {
            case .click: paneFocused = true
            case .wheelUp: paneTop = max(paneTop - 3, 0)
            case .wheelDown: paneTop = min(paneTop + 3, Panes.lastTop(self))
            }
            return
        }
        let before = selection[screen.rawValue]
        switch event {
        case .wheelUp: selection[screen.rawValue] = max(before - 3, 0)
        case .wheelDown: selection[screen.rawValue] = min(before + 3, max(rowCount - 1, 0))
        case .click:
            if let row = rowAt(y: y) { selection[screen.rawValue] = row; paneFocused = false }
        }
        if selection[screen.rawValue] != before { paneTop = 0 }
    }

    /// The list row drawn at screen row `y`, for the lists whose rows start two below the body's top.
    private func rowAt(y: Int) -> Int? {
        let body = Screens.body(self), selected = selection[screen.rawValue]
        let height: Int
        switch screen {
        case .versions: height = body.height - 3
        case .model: height = body.height - 2
        case .plan: height = body.height - 2
        default: return nil
        }
        let window = ListWindow(selected: selected, count: rowCount, height: height)
        let row = window.top + (y - body.y - 2)
        return window.rows.contains(row) ? row : nil
    }

    /// A key while help is open: the scroll keys move it, `?`, Esc and `q` close it; returns
    /// false for any other key.
    private mutating func readHelp(_ key: Key) -> Bool {
        let last = max(0, Overlays.helpLines(self).count - Overlays.helpRows(self))
        switch key {
        case .character("?"), .escape, .character("q"): showHelp = false
        case .down, .character("j"): helpTop = min(helpTop + 1, last)
        case .up, .character("k"): helpTop = max(helpTop - 1, 0)
        case .pageDown, .character(" "): helpTop = min(helpTop + Overlays.helpRows(self) - 1, last)
        case .pageUp: helpTop = max(helpTop - Overlays.helpRows(self) + 1, 0)
        case .home, .character("g"): helpTop = 0
        case .end, .character("G"): helpTop = last
        default: return false
        }
        return true
    }

    /// A key while the pane has the keys: the scroll keys move it, Esc, `h` and `q` give the keys
    /// back to the list; returns false for a key the pane leaves to the screen.
    private mutating func scrollPane(_ key: Key) -> Bool {
        let page = max((Panes.pane(self).map { Panes.visibleRows($0.area, lines: $0.lines.count) } ?? 1) - 1, 1)
        let last = Panes.lastTop(self)
        switch key {
        case .escape, .character("h"), .character("q"): paneFocused = false
        case .down, .character("j"): paneTop = min(paneTop + 1, last)
        case .up, .character("k"): paneTop = max(paneTop - 1, 0)
        case .pageDown, .character(" "): paneTop = min(paneTop + page, last)
        case .pageUp: paneTop = max(paneTop - page, 0)
        case .home, .character("g"): paneTop = 0
        case .end, .character("G"): paneTop = last
        default: return false
        }
        return true
    }

    /// A key while `/` is asking what to find: letters build the text, Enter finds the next
    /// match after where the view is (wrapping round), ignoring case, and keeps the text for
    /// `n` and `N`; Esc gives up.
    private mutating func typeSearch(_ key: Key) {
        guard let text = search else { return }
        switch key {
        case .escape: search = nil
        case .backspace: search = String(text.dropLast())
        case .character(let character): search = text + String(character)
        case .enter:
            search = nil
            if searchIsFilter, screen == .model {
                modelFilter = text.isEmpty ? nil : text
                selection[Screen.model.rawValue] = 0
                paneTop = 0
                if modelEntities.isEmpty { searchMissed = text; modelFilter = nil }
                return
            }
            if searchIsFilter {
                planFilter = text.isEmpty ? nil : text
                selection[Screen.plan.rawValue] = 0
                if planLines.isEmpty { searchMissed = text; planFilter = nil }
                return
            }
            guard !text.isEmpty else { return }
            lastSearch = text
            find(text, forward: true)
        default: break
        }
    }

    /// Moves to the next (or previous) line holding `text`, wherever the keys are: in a step's
    /// SQL, in a focused pane, or in the screen's list.
    mutating func find(_ text: String, forward: Bool) {
        let lines: [String], start: Int
        if screen == .plan, let view = sqlView {
            lines = SQLScreen.lines(self, step: view.step).map(\.text)
            start = view.match ?? view.top
        } else if paneFocused, let pane = Panes.pane(self) {
            lines = pane.lines.map(\.text)
            start = paneTop
        } else {
            lines = rowNames
            start = selection[screen.rawValue]
        }
        let after = forward ? Array(lines.indices.dropFirst(start + 1)) + Array(lines.indices.prefix(start + 1))
            : Array(lines.indices.prefix(start).reversed()) + Array(lines.indices.dropFirst(start).reversed())
        guard let found = after.first(where: { lines[$0].localizedCaseInsensitiveContains(text) }) else {
            searchMissed = text
            return
        }
        searchMissed = nil
        if screen == .plan, let view = sqlView {
            sqlView = SQLView(step: view.step, top: min(found, SQLScreen.lastTop(self, step: view.step)), match: found)
        } else if paneFocused {
            paneTop = min(found, Panes.lastTop(self))
        } else {
            selection[screen.rawValue] = found
            paneTop = 0
        }
    }

    /// What `/` searches on the current screen, one per selectable row.
    private var rowNames: [String] {
        switch screen {
        // A version is found by its name and by what it changed (`/PersonalInvitation` finds
        // the versions that add or drop it).
        case .versions: return versions.map { ([$0.name] + $0.changes).joined(separator: "\n") }
        case .model: return modelEntities.map(\.name)
        // A mapping is found by its name, its entities, and its properties' names and expressions.
        case .mappings: return allMappings.map { ([$0.name, $0.source ?? "", $0.destination ?? ""] + $0.properties.map { "\($0.name) = \($0.expression)" }).joined(separator: "\n") }
        case .plan: return planLines.map(\.text)
        case .migrate: return results.map { "\($0.from) \($0.to)" }
        }
    }

    /// A key while the Plan screen shows a step's SQL: ↑↓, PgUp/PgDn, g/G and Home/End scroll
    /// (never past the last line), ←→ show the previous or next step's SQL (selecting that step
    /// on the plan), Esc and `q` go back to the plan. Returns false for a key the view leaves to
    /// the screen (`/`, `n`, `N`, Tab, Shift-Tab, the number keys, Ctrl-C); other keys wait.
    private mutating func readSQL(_ key: Key) -> Bool {
        guard let view = sqlView else { return false }
        let page = max(SQLScreen.visibleRows(self) - 1, 1)
        var top = view.top
        switch key {
        case .escape, .character("q"):
            sqlView = nil
            return true
        case .left, .character("h"), .right, .character("l"):
            let step = view.step + (key == .left || key == .character("h") ? -1 : 1)
            guard steps.indices.contains(step) else { return true }
            sqlView = SQLView(step: step)
            selection[Screen.plan.rawValue] = planLine(ofStep: step)
            return true
        case .down, .character("j"): top += 1
        case .up, .character("k"): top -= 1
        case .pageDown, .character(" "): top += page
        case .pageUp: top -= page
        case .home, .character("g"): top = 0
        case .end, .character("G"): top = SQLScreen.lastTop(self, step: view.step)
        case .character("/"), .character("n"), .character("N"), .tab, .backTab, .interrupt: return false
        case .character(let digit) where ("1"..."5").contains(digit): return false
        // Anything else waits: `m` does not start a migration from inside the SQL.
        default: return true
        }
        sqlView = SQLView(step: view.step, top: max(0, min(top, SQLScreen.lastTop(self, step: view.step))))
        return true
    }

    /// Rows the current screen can select among.
    var rowCount: Int {
        switch screen {
        case .versions: return versions.count
        case .model: return modelEntities.count
        case .mappings: return allMappings.count
        case .plan: return planLines.count
        case .migrate: return results.count
        }
    }

    /// How far PgUp/PgDn move a list's selection: a window's rows, less one kept for context.
    public var pageRows: Int { max(height - 10, 1) }

    /// The Model screen's entities: every one of the selected version's, or under a filter (`f`)
    /// those whose name or properties hold its text, or that a change from the version before
    /// names and holds it (`f added`: the entities that gained something; `f renamed`, `f removed`).
    var modelEntities: [Entity] {
        guard let version = selectedVersion else { return [] }
        guard let filter = modelFilter, !filter.isEmpty else { return version.entities }
        let changes = version.changes.filter { $0.localizedCaseInsensitiveContains(filter) }
        return version.entities.filter { entity in
            entity.name.localizedCaseInsensitiveContains(filter) || entity.properties.contains { $0.localizedCaseInsensitiveContains(filter) }
                || changes.contains { $0.hasPrefix(entity.name + ".") || $0.contains(" \(entity.name) ") || $0.hasSuffix(" \(entity.name)") || $0.contains(" \(entity.name).") }
        }
    }

    /// The version the model screen shows: the one selected on the versions screen.
    var selectedVersion: Version? {
        versions.indices.contains(selection[Screen.versions.rawValue]) ? versions[selection[Screen.versions.rawValue]] : nil
    }
}
