import MigrationEngine

/// A key the console understands, decoded by the terminal adapter.
public enum Key: Equatable, Sendable {
    case up, down, left, right, pageUp, pageDown, home, end, tab, enter, escape, backspace, character(Character), interrupt
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
        case .stepDone(let result, let paused):
            gatheringStep = nil
            results.append(result)
            selection[Screen.migrate.rawValue] = results.count - 1
            if paused && mode == .confirmingCancel {
                pausedBeforeConfirming = .pausedAfterStep(result.index)
            } else if paused && mode != .cancelling {
                mode = .pausedAfterStep(result.index)
            }
            return []
        case .finished(let outcome):
            self.outcome = outcome
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
        if showHelp {
            if key == .character("?") || key == .escape || key == .character("q") { showHelp = false }
            return []
        }
        if search != nil {
            typeSearch(key)
            return []
        }
        if screen == .plan, sqlView != nil, key != .character("?"), key != .character("q"), key != .interrupt {
            readSQL(key)
            return []
        }
        switch key {
        case .character("q"), .interrupt:
            quit = true
            return [.quit]
        case .character("?"):
            showHelp = true
        case .character("/") where [.versions, .model, .mappings, .plan].contains(screen):
            search = ""
        case .tab, .right, .character("l"):
            screen = Screen(rawValue: (screen.rawValue + 1) % Screen.allCases.count) ?? .versions
        case .left, .character("h"):
            screen = Screen(rawValue: (screen.rawValue + Screen.allCases.count - 1) % Screen.allCases.count) ?? .versions
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

    /// A key while `/` is asking what to find: letters build the text, Enter selects the next row
    /// (after the selection, wrapping round) whose name holds it, ignoring case; Esc gives up.
    private mutating func typeSearch(_ key: Key) {
        guard let text = search else { return }
        switch key {
        case .escape: search = nil
        case .backspace: search = String(text.dropLast())
        case .character(let character): search = text + String(character)
        case .enter:
            search = nil
            guard !text.isEmpty else { return }
            let names = rowNames, start = selection[screen.rawValue]
            let order = Array(names.indices.dropFirst(start + 1)) + Array(names.indices.prefix(start + 1))
            if let found = order.first(where: { names[$0].localizedCaseInsensitiveContains(text) }) {
                selection[screen.rawValue] = found
                searchMissed = nil
            } else {
                searchMissed = text
            }
        default: break
        }
    }

    /// What `/` searches on the current screen, one per selectable row.
    private var rowNames: [String] {
        switch screen {
        case .versions: return versions.map(\.name)
        case .model: return selectedVersion?.entities.map(\.name) ?? []
        case .mappings: return allMappings.map(\.name)
        case .plan: return planLines.map(\.text)
        case .migrate: return results.map { "\($0.from) \($0.to)" }
        }
    }

    /// A key while the Plan screen shows a step's SQL: ↑↓ and PgUp/PgDn scroll (never past the
    /// last line), ←→ show the previous or next step's SQL (selecting that step on the plan),
    /// Esc goes back to the plan; other keys do nothing there (? and q work as anywhere).
    private mutating func readSQL(_ key: Key) {
        guard let view = sqlView else { return }
        let page = max(SQLScreen.visibleRows(self) - 1, 1)
        var top = view.top
        switch key {
        case .escape:
            sqlView = nil
            return
        case .left, .character("h"), .right, .character("l"):
            let step = view.step + (key == .left || key == .character("h") ? -1 : 1)
            guard steps.indices.contains(step) else { return }
            sqlView = SQLView(step: step)
            selection[Screen.plan.rawValue] = planLine(ofStep: step)
            return
        case .down, .character("j"): top += 1
        case .up, .character("k"): top -= 1
        case .pageDown: top += page
        case .pageUp: top -= page
        default: return
        }
        sqlView = SQLView(step: view.step, top: max(0, min(top, SQLScreen.lastTop(self, step: view.step))))
    }

    /// Rows the current screen can select among.
    var rowCount: Int {
        switch screen {
        case .versions: return versions.count
        case .model: return selectedVersion?.entities.count ?? 0
        case .mappings: return allMappings.count
        case .plan: return planLines.count
        case .migrate: return results.count
        }
    }

    /// How far PgUp/PgDn move a list's selection: a window's rows, less one kept for context.
    public var pageRows: Int { max(height - 10, 1) }

    /// The version the model screen shows: the one selected on the versions screen.
    var selectedVersion: Version? {
        versions.indices.contains(selection[Screen.versions.rawValue]) ? versions[selection[Screen.versions.rawValue]] : nil
    }
}
