/// What draws over a screen: help and the cancel confirmation.
enum Overlays {
    /// Every key, by context: the same table the key bar draws from.
    static let keys: [(context: String, keys: [(String, String)])] = [
        ("Anywhere", [("Tab / ← →", "next / previous screen"), ("↑ ↓ / j k", "move; after migrating, each step's result (Migrate)"),
                      ("PgUp PgDn g G", "a page up / down; the first / last row (Home End)"),
                      ("/", "find a version, entity, mapping or plan line by name"),
                      ("Enter", "open: a version's model, a step's SQL"), ("?", "this help"), ("q", "quit")]),
        ("A step's SQL (Enter on Plan)", [("↑ ↓ PgUp PgDn", "scroll"), ("← → / h l", "the previous / next step's SQL"), ("Esc", "back to the plan")]),
        ("Before migrating", [("m", "migrate to the target version"), ("s", "step mode: pause after each entity mapping")]),
        ("While migrating", [("x / Ctrl-C", "cancel and roll back (asks first)"), ("Enter / n", "step mode: run the next entity mapping or step"),
                             ("c", "step mode: run to the end"), ("other keys", "ignored until the migration ends")]),
    ]

    static func help(_ state: ConsoleState, _ grid: inout Grid) {
        let roomy = state.height >= 30
        let lines = keys.flatMap { section in [section.context] + section.keys.map { "  \($0.0.padding(toLength: 14, withPad: " ", startingAt: 0)) \($0.1)" } + (roomy ? [""] : []) }
        box(roomy ? Array(lines.dropLast()) : lines, title: "Keys", state: state, grid: &grid)
    }

    static func confirmCancel(_ state: ConsoleState, _ grid: inout Grid) {
        box(["Cancel the migration?", "", "It stops after the current chunk and rolls back:", "the store stays exactly as it was.", "",
             "y  cancel      n  keep going"], title: "Cancel", state: state, grid: &grid)
    }

    private static func box<Lines: Collection>(_ lines: Lines, title: String, state: ConsoleState, grid: inout Grid) where Lines.Element == String {
        let g = state.glyphs
        let width = min(state.width - 4, (lines.map(\.count).max() ?? 0) + 4)
        let height = lines.count + 2
        let x = (state.width - width) / 2, y = max(2, (state.height - height) / 2)
        let edge = String(repeating: g.horizontal, count: width - 2)
        grid.put("\(g.topLeft)\(edge)\(g.topRight)", x: x, y: y, style: .bold)
        grid.put(" \(title) ", x: x + 2, y: y, style: .reverse)
        for (index, line) in lines.enumerated() {
            grid.put(String(g.vertical) + " " + line.padding(toLength: width - 4, withPad: " ", startingAt: 0) + " " + String(g.vertical), x: x, y: y + 1 + index)
        }
        grid.put("\(g.bottomLeft)\(edge)\(g.bottomRight)", x: x, y: y + height - 1, style: .bold)
    }
}
