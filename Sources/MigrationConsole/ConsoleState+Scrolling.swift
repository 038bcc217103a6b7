/// The keys (and the mouse) where something other than a screen's list has them: help, a focused
/// pane, a step's SQL. Each returns whether it took the key; ``ConsoleState/reduce(_:)`` asks them
/// first.
extension ConsoleState {
    /// A key while help is open: the scroll keys move it, `?`, Esc and `q` close it; returns
    /// false for any other key.
    mutating func readHelp(_ key: Key) -> Bool {
        if [.character("?"), .escape, .character("q")].contains(key) {
            overlays.help = false
            return true
        }
        guard
            let top = Self.scrolled(
                overlays.helpTop, by: key, last: Overlays.lastHelpTop(self), page: Overlays.helpRows(self) - 1)
        else { return false }
        overlays.helpTop = top
        return true
    }

    /// `v`: the live log, following its newest line; without one, the status line says how to
    /// get it.
    mutating func openLog() {
        guard overlays.log.isOn else {
            find.note = "No log: open the console with --verbose (or CHRYSALIS_LOG=debug) to watch it here"
            return
        }
        overlays.log.isShown = true
        overlays.log.top = nil
    }

    /// A key while the log is open: the scroll keys move it (at its end it follows the newest
    /// line again), `v`, Esc and `q` close it; returns false for any other key.
    mutating func readLog(_ key: Key) -> Bool {
        if [.character("v"), .escape, .character("q")].contains(key) {
            overlays.log.isShown = false
            return true
        }
        let last = Overlays.lastLogTop(self)
        guard let top = Self.scrolled(overlays.log.top ?? last, by: key, last: last, page: Overlays.helpRows(self) - 1)
        else { return false }
        overlays.log.top = top >= last ? nil : top
        return true
    }

    /// Where a scroll key takes a view whose first line in view is `top`, its furthest `last`,
    /// a page `page` lines: j/k and the arrows by a line, PgUp/PgDn (and Space) by a page,
    /// Ctrl-U/Ctrl-D by half of one, g/G and Home/End to the ends. Nil for any other key.
    static func scrolled(_ top: Int, by key: Key, last: Int, page: Int) -> Int? {
        let page = max(page, 1)
        switch key {
        case .down, .character("j"): return min(top + 1, last)
        case .up, .character("k"): return max(top - 1, 0)
        case .pageDown, .character(" "): return min(top + page, last)
        case .pageUp: return max(top - page, 0)
        case .halfPageDown: return min(top + max(page / 2, 1), last)
        case .halfPageUp: return max(top - max(page / 2, 1), 0)
        case .home, .character("g"): return 0
        case .end, .character("G"): return last
        default: return nil
        }
    }

    /// A key while the pane has the keys: the scroll keys move it, Esc, `h` and `q` give the keys
    /// back to the list; returns false for a key the pane leaves to the screen.
    mutating func scrollPane(_ key: Key) -> Bool {
        if [.escape, .character("h"), .character("q")].contains(key) {
            pane.focused = false
            return true
        }
        let page = max((Panes.pane(self).map { Panes.visibleRows($0.area, lines: $0.lines.count) } ?? 1) - 1, 1)
        guard let top = Self.scrolled(pane.top, by: key, last: Panes.lastTop(self), page: page) else { return false }
        pane.top = top
        return true
    }

    /// A key while the Plan screen shows a step's SQL: ↑↓, PgUp/PgDn, g/G and Home/End scroll
    /// (never past the last line), ←→ show the previous or next step's SQL (selecting that step
    /// on the plan), Esc and `q` go back to the plan. Returns false for a key the view leaves to
    /// the screen (`/`, `n`, `N`, Tab, Shift-Tab, the number keys, Ctrl-C); other keys wait.
    mutating func readSQL(_ key: Key) -> Bool {
        guard let view = overlays.sql else { return false }
        let page = max(SQLScreen.visibleRows(self) - 1, 1)
        var top = view.top
        switch key {
        case .escape, .character("q"):
            overlays.sql = nil
            return true
        case .left, .character("h"), .right, .character("l"), .character("["), .character("]"):
            let step = view.step + ([.left, .character("h"), .character("[")].contains(key) ? -1 : 1)
            guard steps.indices.contains(step) else { return true }
            overlays.sql = SQLView(step: step)
            selection[Screen.plan.rawValue] = planLine(ofStep: step)
            return true
        case .down, .character("j"): top += 1
        case .up, .character("k"): top -= 1
        case .pageDown, .character(" "): top += page
        case .pageUp: top -= page
        case .halfPageDown: top += max(page / 2, 1)
        case .halfPageUp: top -= max(page / 2, 1)
        case .home, .character("g"): top = 0
        case .end, .character("G"): top = SQLScreen.lastTop(self, step: view.step)
        case .character("/"), .character("n"), .character("N"), .character("y"), .tab, .backTab, .interrupt:
            return false
        case .character(let digit) where ("1"..."5").contains(digit): return false
        // Anything else waits: `m` does not start a migration from inside the SQL.
        default: return true
        }
        overlays.sql = SQLView(step: view.step, top: max(0, min(top, SQLScreen.lastTop(self, step: view.step))))
        return true
    }

    /// The mouse: a click on a tab opens its screen; over a pane the wheel scrolls it and a click
    /// gives it the keys; over a list (or a step's SQL) the wheel moves three rows and a click
    /// selects the row under it.
    mutating func mouse(_ event: Key.MouseEvent, x: Int, y: Int) {
        if y == 1, event == .click {
            var left = 1
            for tab in Screen.allCases {
                let width = tab.title.count + 2
                if x >= left && x < left + width { screen = tab; pane.focused = false; return }
                left += width + 1
            }
            return
        }
        if screen == .plan, overlays.sql != nil {
            if event != .click { for _ in 0..<3 { _ = readSQL(event == .wheelUp ? .up : .down) } }
            return
        }
        if let shown = Panes.pane(self), x >= shown.area.x - 1, y >= shown.area.y, y < shown.area.y + shown.area.height
        {
            switch event {
            case .click: pane.focused = true
            case .wheelUp: pane.top = max(pane.top - 3, 0)
            case .wheelDown: pane.top = min(pane.top + 3, Panes.lastTop(self))
            }
            return
        }
        let before = selection[screen.rawValue]
        switch event {
        case .wheelUp: selection[screen.rawValue] = max(before - 3, 0)
        case .wheelDown: selection[screen.rawValue] = min(before + 3, max(rowCount - 1, 0))
        case .click:
            if let row = rowAt(y: y) { selection[screen.rawValue] = row; pane.focused = false }
        }
        if selection[screen.rawValue] != before { pane.top = 0 }
    }

    /// The list row drawn at screen row `y`, for the lists whose rows start two below the body's top.
    func rowAt(y: Int) -> Int? {
        let body = Screens.body(self), selected = selection[screen.rawValue]
        let height: Int
        switch screen {
        case .versions: height = body.height - 3
        case .model: height = body.height - 2
        case .plan: height = BrowseScreens.planListHeight(self, body)
        case .mappings:
            // A pass's name is a line of the list but no mapping: a click there selects nothing.
            let lines = BrowseScreens.mappingLines(self)
            let window = BrowseScreens.mappingWindow(self, lines: lines, body: body)
            let line = window.top + (y - body.y - 2)
            return window.rows.contains(line) ? lines[line].mapping : nil
        default: return nil
        }
        let window = ListWindow(selected: selected, count: rowCount, height: height)
        let row = window.top + (y - body.y - 2)
        return window.rows.contains(row) ? row : nil
    }
}
