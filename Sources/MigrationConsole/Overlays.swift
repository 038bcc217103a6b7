/// What draws over a screen: help and the cancel confirmation.
enum Overlays {
    /// Every key, by context: the same words the key bar uses.
    static let keys: [(context: String, keys: [(String, String)])] = [
        (
            "Anywhere",
            [
                ("Tab ← → S-Tab", "next / previous screen"), ("1 … 5", "a screen by its number"),
                ("↑ ↓ / j k", "move in the list; after migrating, each step's result (Migrate)"),
                ("PgUp PgDn g G", "a page up / down; the first / last row (Home End)"),
                ("Ctrl-U Ctrl-D", "half a page up / down (lists, panes, help, SQL)"),
                (
                    "l / Enter",
                    "read the pane beside the list: j k PgUp PgDn g G scroll it, Esc or h gives the keys back"
                ),
                ("/", "find in the list, the focused pane or a step's SQL: names, changes, expressions"),
                ("n / N", "the next / previous match of the last find (matches are lit)"),
                ("Esc", "back: close a pane, a step's SQL, a version's model"), ("?", "this help (j k scroll it)"),
                ("y", "copy the plan line, the step's SQL or the original's path (OSC 52: over SSH too)"),
                ("v", "the live log of --verbose: the engine's decisions and its SQL, a migration going on under it"),
                ("q", "close what is open; quit from the top"),
            ]
        ),
        ("Versions", [("Enter", "the version's model"), ("/", "finds a version by name or by what it changed")]),
        (
            "Plan",
            [
                ("Enter", "the selected step's SQL"), ("[ ]", "the previous / next step (in its SQL too)"),
                ("l", "read the selected line in full, under the list, when it is longer than its row"),
                ("f", "show only the lines holding a text (`f dropped`: every loss), with their steps; Esc shows all"),
            ]
        ),
        (
            "Model",
            [
                (
                    "f",
                    """
                    list only the entities a text names, or whose change from the version before holds it (`f \
                    added`); Esc lists all
                    """
                )
            ]
        ),
        (
            "A step's SQL (Enter on Plan)",
            [
                ("↑ ↓ PgUp PgDn g G", "scroll"), ("← → / h l", "the previous / next step's SQL"),
                ("/ n N", "find in the SQL"),
                ("Esc / q", "back to the plan"),
            ]
        ),
        (
            "Paused (step mode)",
            [
                ("Enter / n", "the next entity mapping or step"), ("c", "run to the end"), ("x", "cancel"),
                ("j k PgUp PgDn g G", "scroll the pause's rows, source beside destination"),
            ]
        ),
        (
            "After migrating",
            [
                ("↑ ↓ / j k", "each step's result"), ("l", "read the result: j k scroll it"),
                ("r", "every entity's rows before and after, or the step's result again"),
            ]
        ),
        (
            "Before migrating",
            [("m", "migrate to the target version"), ("s", "step mode: pause after each entity mapping and each step")]
        ),
        (
            "While migrating",
            [
                ("x / Ctrl-C", "cancel and roll back (asks first)"),
                ("Enter / n", "step mode: run the next entity mapping or step"),
                ("c", "step mode: run to the end"), ("?", "this help; the migration goes on"),
                ("v", "the live log (with --verbose); the migration goes on"),
                ("other keys", "ignored until the migration ends"),
            ]
        ),
    ]

    /// The help's lines for `state`: the section for what is on the screen first, then the rest,
    /// each key's words wrapped to the box.
    static func helpLines(_ state: ConsoleState) -> [String] {
        let first: String
        if state.isBusy {
            first = "While migrating"
        } else if state.screen == .plan && state.overlays.sql != nil {
            first = "A step's SQL (Enter on Plan)"
        } else if state.screen == .versions {
            first = "Versions"
        } else if state.screen == .plan {
            first = "Plan"
        } else if state.screen == .model {
            first = "Model"
        } else if state.mode == .finished && state.screen == .migrate {
            first = "After migrating"
        } else {
            first = "Anywhere"
        }
        let ordered = keys.filter { $0.context == first } + keys.filter { $0.context != first }
        let width = min(state.width - 8, 76)
        var lines: [String] = []
        for section in ordered {
            if !lines.isEmpty { lines.append("") }
            lines.append(section.context)
            for (key, words) in section.keys {
                for (index, text) in MigrateScreen.wrap(words, width: width - 20).enumerated() {
                    lines.append(
                        "  " + (index == 0 ? key : "").padding(toLength: 17, withPad: " ", startingAt: 0) + " " + text)
                }
            }
        }
        return lines
    }

    /// Rows of help the box shows at once: the body's rows, less the box's edges.
    static func helpRows(_ state: ConsoleState) -> Int { max(Screens.body(state).height - 2, 1) }

    /// The first line the help can scroll to: with more lines than rows, the box's last row says
    /// where it stands, so one row fewer shows help and `G` must go one line further.
    static func lastHelpTop(_ state: ConsoleState) -> Int {
        let count = helpLines(state).count, rows = helpRows(state)
        return count > rows ? count - max(rows - 1, 1) : 0
    }

    /// Help over the body, never over the title, the status line or the key bar; it scrolls.
    static func help(_ state: ConsoleState, _ grid: inout Grid) {
        let lines = helpLines(state)
        let rows = helpRows(state)
        let top = max(0, min(state.overlays.helpTop, lastHelpTop(state)))
        var shown = Array(lines.dropFirst(top).prefix(rows))
        if lines.count > rows {
            shown = Array(shown.prefix(max(rows - 1, 1)))
            shown.append("lines \(top + 1)–\(top + shown.count) of \(lines.count): j k PgUp PgDn scroll")
        }
        box(shown, title: "Keys", state: state, grid: &grid, top: Screens.body(state).y)
    }

    /// The log's rows: each line wrapped to the box.
    static func logRows(_ state: ConsoleState) -> [String] { state.overlays.log.rows(width: max(state.width - 8, 10)) }

    /// The first row the log scrolls to: its newest line on the box's last row but one (the
    /// last says where the log stands).
    static func lastLogTop(_ state: ConsoleState) -> Int {
        max(logRows(state).count - max(helpRows(state) - 1, 1), 0)
    }

    /// The live log over the body, as help is drawn: the newest lines unless it was scrolled.
    static func log(_ state: ConsoleState, _ grid: inout Grid) {
        let rows = logRows(state), room = max(helpRows(state) - 1, 1)
        let top = min(state.overlays.log.top ?? lastLogTop(state), lastLogTop(state))
        var shown = Array(rows.dropFirst(top).prefix(room))
        shown += Array(repeating: "", count: room - shown.count)
        let earlier = state.overlays.log.forgotten > 0 ? " (\(state.overlays.log.forgotten) older lines let go)" : ""
        shown.append(
            rows.isEmpty
                ? "Nothing logged yet: the engine logs as it plans and runs steps"
                : "rows \(top + 1)–\(top + min(room, rows.count - top)) of \(rows.count)\(earlier)"
                    + (state.overlays.log.top == nil ? ", following the newest" : ": G follows the newest"))
        let padded = shown.map { $0.padding(toLength: max(state.width - 8, 10), withPad: " ", startingAt: 0) }
        box(padded, title: "Log", state: state, grid: &grid, top: Screens.body(state).y)
    }

    static func confirmCancel(_ state: ConsoleState, _ grid: inout Grid) {
        box(
            [
                "Cancel the migration?", "", "It stops after the current chunk and rolls back:",
                "the store stays exactly as it was.", "",
                "y  cancel      n  keep going",
            ], title: "Cancel", state: state, grid: &grid)
    }

    private static func box<Lines: Collection>(
        _ lines: Lines, title: String, state: ConsoleState, grid: inout Grid, top: Int? = nil
    )
    where Lines.Element == String {
        let g = state.glyphs
        let width = min(state.width - 4, (lines.map { DisplayWidth.of($0) }.max() ?? 0) + 4)
        let height = lines.count + 2
        let x = (state.width - width) / 2, y = top ?? max(2, (state.height - height) / 2)
        let edge = String(repeating: g.horizontal, count: width - 2)
        grid.put("\(g.topLeft)\(edge)\(g.topRight)", x: x, y: y, style: .bold)
        grid.put(" \(title) ", x: x + 2, y: y, style: .reverse)
        for (index, line) in lines.enumerated() {
            grid.put(
                String(g.vertical) + " " + line.padding(toLength: width - 4, withPad: " ", startingAt: 0) + " "
                    + String(g.vertical), x: x, y: y + 1 + index)
        }
        grid.put("\(g.bottomLeft)\(edge)\(g.bottomRight)", x: x, y: y + height - 1, style: .bold)
    }
}
