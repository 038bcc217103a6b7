import Foundation
import MigrationEngine

/// The migrate screen: what to press before, the live bar and mapping order during, step mode's
/// pauses, and the result (or the error) after.
enum MigrateScreen {
    static func render(_ state: ConsoleState, _ grid: inout Grid, _ body: Screens.Body) {
        let g = state.glyphs
        switch state.mode {
        case .finished:
            result(state, &grid, body)
            return
        case .failed(let message) where state.progress == nil || !message.hasPrefix("Cancelling"):
            grid.put("The migration stopped.", x: body.x, y: body.y, style: .bad)
            for (index, line) in wrap(message, width: body.width).enumerated() where index < body.height - 3 {
                grid.put(line, x: body.x, y: body.y + 2 + index)
            }
            grid.put("The store is as it was before the migration.", x: body.x, y: body.y + body.height - 1, style: .good)
            return
        case .browsing where state.progress == nil:
            grid.put(state.steps.isEmpty ? "Nothing to migrate." : "Ready to migrate \(state.storeVersion) \(g.arrow) \(state.targetVersion).", x: body.x, y: body.y, style: .bold)
            if !state.steps.isEmpty {
                grid.put("m  migrate now, with a live progress bar", x: body.x + 2, y: body.y + 2)
                grid.put("s  step through the mapping order, pausing after each entity mapping", x: body.x + 2, y: body.y + 3)
                grid.put("The store is only read until the migrated copy is verified and swapped in;", x: body.x, y: body.y + 5, style: .dim)
                grid.put("the original is kept beside it as \(backupName(state.storeName)).", x: body.x, y: body.y + 6, style: .dim)
            }
            return
        default:
            break
        }
        guard let progress = state.progress else {
            grid.put("Starting…", x: body.x, y: body.y, style: .bold)
            return
        }
        let percent = Int((progress.fraction * 100).rounded(.down))
        grid.put("Step \(progress.step)/\(progress.stepCount)  \(progress.pass)", x: body.x, y: body.y, style: .bold, limit: body.width)
        let barWidth = body.width - 7
        grid.put(Screens.bar(progress.fraction, width: barWidth, glyphs: g), x: body.x, y: body.y + 2, style: .good)
        grid.put(String(format: "%4d%%", percent), x: body.x + barWidth + 1, y: body.y + 2, style: .bold)
        var facts = ["\(progress.stage.rawValue)"]
        if progress.rowsTotal > 0 { facts.append("\(progress.rowsDone)/\(progress.rowsTotal) rows") }
        if progress.rowsPerSecond >= 1 { facts.append("\(Int(progress.rowsPerSecond)) rows/s") }
        facts.append("\(Int(progress.elapsed)) s")
        if progress.fraction > 0.02 && progress.fraction < 1 { facts.append("ETA \(Int((progress.elapsed * (1 - progress.fraction) / progress.fraction).rounded(.up))) s") }
        grid.put(facts.joined(separator: g.separator), x: body.x, y: body.y + 3, limit: body.width)

        let order = state.allMappings.filter { $0.pass == progress.pass }
        let listY = body.y + 5
        grid.put("Mapping order", x: body.x, y: listY, style: .bold)
        let report: StepReport?
        if case .paused(let paused) = state.mode { report = paused } else { report = nil }
        for (index, mapping) in order.enumerated() where listY + 1 + index < body.y + body.height {
            // Lit: the mapping running, or in step mode the one that runs next; ticked: done in this stage.
            let lit = report.map { $0.next == mapping.name } ?? (mapping.name == progress.entityMapping)
            let done = report.map { index + 1 <= $0.index && $0.stage == progress.stage } ?? (index + 1 < progress.entityMappingIndex)
            let mark = lit ? g.pointer : (done ? g.check : " ")
            grid.put("\(mark) \(index + 1). \(mapping.name)", x: body.x, y: listY + 1 + index, style: lit ? .reverse : .normal, limit: body.width / 2 - 1)
        }
        if case .paused(let report) = state.mode {
            paused(report, state, &grid, Screens.Body(x: body.x + body.width / 2 + 1, y: listY, width: body.width / 2 - 1, height: body.height - 5))
        }
    }

    private static func paused(_ report: StepReport, _ state: ConsoleState, _ grid: inout Grid, _ area: Screens.Body) {
        grid.put("Paused after \(report.entityMapping)", x: area.x, y: area.y, style: .bold, limit: area.width)
        grid.put("(\(report.stage.rawValue)) \(report.rowsCreated) destination rows so far", x: area.x, y: area.y + 1, limit: area.width)
        for (index, row) in report.sampleRows.enumerated() where index < area.height - 5 {
            grid.put(row, x: area.x, y: area.y + 3 + index, style: .dim, limit: area.width)
        }
        grid.put("Next: \(report.next ?? "validation")", x: area.x, y: area.y + 4 + min(report.sampleRows.count, area.height - 5), style: .accent, limit: area.width)
    }

    private static func result(_ state: ConsoleState, _ grid: inout Grid, _ body: Screens.Body) {
        guard let outcome = state.outcome else { return }
        let g = state.glyphs
        grid.put("\(g.check) Migrated \(outcome.from) \(g.arrow) \(outcome.to) in \(String(format: "%.1f", outcome.seconds)) s", x: body.x, y: body.y, style: .good)
        if let backup = outcome.backup {
            grid.put("The original is kept as \(backup)", x: body.x, y: body.y + body.height - 1, style: .dim, limit: body.width)
        }
        guard !outcome.rows.isEmpty else {
            // A schema-only step altered the store in place and never touched a row.
            grid.put("Verified: the schema is the destination model's; every row is unchanged (altered in place).", x: body.x, y: body.y + 1, limit: body.width)
            return
        }
        grid.put("Verified: SQLite integrity check ok, every entity's rows reconciled.", x: body.x, y: body.y + 1)
        grid.put("Entity".padding(toLength: 24, withPad: " ", startingAt: 0) + "before".padding(toLength: 10, withPad: " ", startingAt: 0) + "after", x: body.x, y: body.y + 3, style: .bold)
        for (index, row) in outcome.rows.enumerated() where index < body.height - 7 {
            let before = row.before.map(String.init) ?? "—", after = row.after.map(String.init) ?? "—"
            grid.put(row.entity.padding(toLength: 24, withPad: " ", startingAt: 0) + before.padding(toLength: 10, withPad: " ", startingAt: 0) + after,
                     x: body.x, y: body.y + 4 + index)
        }
    }

    static func backupName(_ store: String) -> String {
        let url = URL(fileURLWithPath: store)
        return url.deletingPathExtension().lastPathComponent + "~" + (url.pathExtension.isEmpty ? "" : "." + url.pathExtension)
    }

    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = [], line = ""
        for word in text.split(separator: " ") {
            if line.count + word.count + 1 > width, !line.isEmpty { lines.append(line); line = "" }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}

/// What draws over a screen: help and the cancel confirmation.
enum Overlays {
    /// Every key, by context: the same table the key bar draws from.
    static let keys: [(context: String, keys: [(String, String)])] = [
        ("Anywhere", [("Tab / ← →", "next / previous screen"), ("↑ ↓ / j k", "move"), ("?", "this help"), ("q", "quit")]),
        ("Versions", [("Enter", "the selected version's model and its changes")]),
        ("Before migrating", [("m", "migrate to the target version"), ("s", "step mode: pause after each entity mapping")]),
        ("While migrating", [("x / Ctrl-C", "cancel (asks first; rolls back)"), ("other keys", "ignored until the migration ends")]),
        ("Step mode", [("Enter / n", "run the next entity mapping"), ("c", "run to the end"), ("x", "cancel")]),
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
