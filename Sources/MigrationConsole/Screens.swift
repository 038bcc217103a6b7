import Foundation
import MigrationEngine

/// The console's screens: pure functions from ``ConsoleState`` to a ``Grid`` of its size. The
/// frame (title, tabs, status, key bar) is the same on every screen; the body is the screen's.
package enum Screens {
    /// The whole screen for `state`.
    package static func render(_ state: ConsoleState) -> Grid {
        var grid = Grid(width: state.width, height: state.height)
        guard state.width >= ConsoleState.minimumSize.width, state.height >= ConsoleState.minimumSize.height else {
            var small = tooSmall(state, grid)
            if state.glyphs == .ascii { small.makeASCII() }
            return small
        }
        if let opening = state.opening {
            var first = self.opening(state, grid, opening)
            if state.glyphs == .ascii { first.makeASCII() }
            return first
        }
        frame(state, &grid)
        let body = body(state)
        switch state.screen {
        case .versions: BrowseScreens.versions(state, &grid, body)
        case .model: BrowseScreens.model(state, &grid, body)
        case .mappings: BrowseScreens.mappings(state, &grid, body)
        case .plan:
            if let view = state.overlays.sql {
                SQLScreen.render(state, view, &grid, body)
            } else {
                BrowseScreens.plan(state, &grid, body)
            }
        case .migrate: MigrateScreen.render(state, &grid, body)
        }
        if let text = state.find.last {
            for y in body.y..<(body.y + body.height) {
                grid.highlight(text, y: y, from: body.x, to: body.x + body.width, style: .accent)
            }
        }
        if state.overlays.log.isShown { Overlays.log(state, &grid) }
        if state.overlays.help { Overlays.help(state, &grid) }
        if state.mode == .confirmingCancel { Overlays.confirmCancel(state, &grid) }
        if state.glyphs == .ascii { grid.makeASCII() }
        return grid
    }

    /// The area a screen's body may draw in.
    struct Body {
        var x: Int, y: Int, width: Int, height: Int
    }

    /// The body's area for the state's size: below the title and tabs, above the status and keys.
    static func body(_ state: ConsoleState) -> Body {
        Body(x: 1, y: 3, width: state.width - 2, height: state.height - 5)
    }

    /// The first frame, drawn before the bundle is read and the plan worked out (an 84-step
    /// plan takes seconds): the store, what is being done, and that `q` quits.
    private static func opening(_ state: ConsoleState, _ grid: Grid, _ message: String) -> Grid {
        var grid = grid
        grid.put(" Chrysalis ", x: 0, y: 0, style: .title)
        grid.put(" " + state.storeName, x: 11, y: 0, limit: state.width - 11)
        let lines = MigrateScreen.wrap(message, width: state.width - 4) + ["", "q quits"]
        for (index, line) in lines.enumerated() {
            grid.put(
                line, x: max(1, (state.width - DisplayWidth.of(line)) / 2), y: max(2, state.height / 2 - 1 + index),
                style: index == 0 ? .bold : .dim)
        }
        return grid
    }

    private static func tooSmall(_ state: ConsoleState, _ grid: Grid) -> Grid {
        var grid = grid
        // A projector at a large font still shows how far the run is.
        let running = state.run.progress.map {
            "Step \($0.step)/\($0.stepCount) · \(Int(($0.fraction * 100).rounded(.down))) %"
        }
        let lines =
            [
                "Terminal too small (\(state.width)×\(state.height)).",
                "The console needs \(ConsoleState.minimumSize.width)×\(ConsoleState.minimumSize.height).",
                state.isBusy ? "The migration goes on." : "Enlarge the window, or press q.",
            ] + (state.isBusy ? running.map { [$0] } ?? [] : [])
        for (index, line) in lines.enumerated() {
            let text = state.glyphs == .ascii ? line.replacingOccurrences(of: "×", with: "x") : line
            grid.put(
                text, x: max(0, (state.width - text.count) / 2), y: max(0, state.height / 2 - 1 + index),
                style: index == 0 ? .bold : .normal)
        }
        return grid
    }

    private static func frame(_ state: ConsoleState, _ grid: inout Grid) {
        let g = state.glyphs
        let versions =
            state.migratedFrom.map { "at \(state.storeVersion), migrated from \($0)" }
            ?? "\(state.storeVersion) \(g.arrow) \(state.targetVersion)"
        let title = " Chrysalis  \(state.storeName)  \(versions)  (model \(state.bundleName))"
        grid.put(
            BrowseScreens.fitted(title, state.width, g).padding(toLength: state.width, withPad: " ", startingAt: 0),
            x: 0, y: 0, style: .title)
        var x = 1
        for screen in ConsoleState.Screen.allCases {
            let label = " \(screen.title) "
            grid.put(
                label, x: x, y: 1,
                style: screen == state.screen ? .reverse : (state.isBusy && screen != .migrate ? .dim : .normal))
            x += label.count + 1
        }
        grid.put(String(repeating: g.horizontal, count: state.width), x: 0, y: 2, style: .dim)
        grid.put(String(repeating: g.horizontal, count: state.width), x: 0, y: state.height - 2, style: .dim)
        grid.put(status(state), x: 1, y: state.height - 2, style: .accent, limit: state.width - 2)
        grid.put(keyBar(state), x: 0, y: state.height - 1, style: .bold, limit: state.width - 1)
    }

    /// The status line: what the console is doing, and why keys are ignored when they are.
    static func status(_ state: ConsoleState) -> String {
        if state.overlays.help { return state.isBusy ? " Help: the migration goes on " : " Help " }
        if state.overlays.log.isShown {
            return " Log: the engine's decisions and its SQL, newest last"
                + (state.isBusy ? "; the migration goes on " : " ")
        }
        switch state.mode {
        case .migrating where state.run.ignoredKeys > 0:
            return " Migration in progress: keys are ignored until it ends (x cancels) "
        case .migrating: return " Migration in progress "
        case .confirmingCancel: return " Cancel? "
        case .cancelling: return " Cancelling: rolling back; the store will be as it was "
        case .paused: return " Step mode: paused" + autoAdvance(state) + " "
        case .pausedAfterStep(let index):
            return " Step mode: step \(index) of \(state.steps.count) done" + autoAdvance(state) + " "
        case .finished where state.find.note != nil: return " \(state.find.note ?? "") "
        case .finished: return " Migration finished "
        case .failed: return " Migration stopped "
        case .browsing where state.find.prompt != nil && state.find.isFilter:
            return " Show only those holding: \(state.find.prompt ?? "")_  (Enter shows them, Esc cancels) "
        case .browsing where state.find.prompt != nil:
            return " Find: \(state.find.prompt ?? "")_  (Enter finds the next, Esc cancels) "
        case .browsing where state.screen == .plan && state.overlays.sql == nil && state.find.planFilter != nil:
            return
                " Only lines holding \"\(state.find.planFilter ?? "")\": \(state.planLines.count) of \(state.allPlanLines.count) (f changes it, Esc shows all) "
        case .browsing where state.find.missed != nil: return " No row holds \"\(state.find.missed ?? "")\" "
        case .browsing where state.find.note != nil: return " \(state.find.note ?? "") "
        case .browsing where state.pane.focused: return " Reading the pane: Esc gives the keys back to the list "
        case .browsing where state.screen == .plan && state.overlays.sql != nil:
            return " Step \((state.overlays.sql?.step ?? 0) + 1)'s SQL, as chrysalis plan --sql prints it "
        case .browsing where state.blocked != nil:
            return " Cannot migrate: browse only (the Plan screen's first line says why; m and s are refused) "
        case .browsing:
            return state.steps.isEmpty
                ? " The store is at the target version: nothing to migrate "
                : " \(state.steps.count) step\(state.steps.count == 1 ? "" : "s") to \(state.targetVersion) "
        }
    }

    /// `; next in 3 s (any key stops this)` while a demo's auto-advance counts down.
    private static func autoAdvance(_ state: ConsoleState) -> String {
        guard state.run.autoAdvance != nil else { return "" }
        if state.run.autoAdvanceStopped { return "; auto-advance stopped (a starts it)" }
        return state.run.autoAdvanceIn.map { "; goes on in \(Int($0.rounded(.up))) s (any key stops this)" } ?? ""
    }

    /// The keys that work now, from the same table as the help screen.
    static func keyBar(_ state: ConsoleState) -> String {
        if state.overlays.help { return " ↑↓/jk PgUp/PgDn scroll  ? Esc q close help" }
        if state.overlays.log.isShown { return " ↑↓/jk PgUp/PgDn scroll  G newest, followed  v Esc q close the log" }
        switch state.mode {
        case .migrating: return " x cancel  ? help"
        case .confirmingCancel: return " y cancel the migration  n keep going"
        case .cancelling: return " (keys are ignored until the rollback ends)"
        case .paused:
            return " Enter/n next mapping  c run to the end  x cancel"
                + (state.run.autoAdvance == nil ? "" : "  a auto")
                + "  ? help"
        case .pausedAfterStep:
            return " Enter/n next step  c run to the end  x cancel" + (state.run.autoAdvance == nil ? "" : "  a auto")
                + "  ? help"
        case .browsing, .finished, .failed:
            if state.find.prompt != nil { return " type to find  Enter find  Esc cancel" }
            if state.screen == .plan && state.overlays.sql != nil {
                return " ↑↓/jk scroll  PgUp/PgDn  g/G ends  ←→ step  / find  Esc back  ? help"
            }
            if state.pane.focused { return " ↑↓/jk scroll  PgUp/PgDn page  g/G ends  / find  Esc back  ? help" }
            let results = state.mode == .finished && state.screen == .migrate && state.run.results.count > 1
            var keys = [results ? " ↑↓/jk each step" : " ↑↓/jk move", "Tab screens"]
            if state.mode == .finished && state.screen == .migrate {
                keys.append(state.pane.showsAllRows ? "r step result" : "r all rows")
            }
            if Panes.pane(state) != nil { keys.append("l details") }
            keys.append("/ find")
            if state.find.last != nil { keys.append("n next") }
            if state.screen == .versions { keys.append("Enter model") }
            if state.screen == .model { keys.append("f filter") }
            if state.screen == .plan && !state.steps.isEmpty { keys += ["Enter SQL", "f filter"] }
            if state.mode == .browsing && !state.steps.isEmpty { keys += ["m migrate", "s step"] }
            keys += ["? help", "q quit"]
            // On a narrow terminal the line keeps what it has room for; `?` lists the rest.
            for dropped in ["n next", "Tab screens", "f filter", "l details"]
            where DisplayWidth.of(keys.joined(separator: "  ")) > state.width - 1 {
                keys.removeAll { $0 == dropped }
            }
            return keys.joined(separator: "  ")
        }
    }

    /// A progress bar of `width` cells for `fraction`.
    static func bar(_ fraction: Double, width: Int, glyphs: Glyphs) -> String {
        let filled = max(0, min(width, Int((fraction * Double(width)).rounded(.down))))
        return String(repeating: glyphs.full, count: filled) + String(repeating: glyphs.empty, count: width - filled)
    }
}
