import Foundation
import MigrationEngine

/// The migrate screen before and during a migration: what to press, then the live bar for the
/// whole plan, the running stage in its own unit, the plan's steps ticked as they finish, the
/// mapping order of a mapping step, and the last finished step's result beside them.
enum MigrateScreen {
    static func render(_ state: ConsoleState, _ grid: inout Grid, _ body: Screens.Body) {
        switch state.mode {
        case .finished: ResultScreen.finished(state, &grid, body)
        case .failed(let message): ResultScreen.stopped(message, state, &grid, body)
        case .browsing where state.run.progress == nil: ready(state, &grid, body)
        default: running(state, &grid, body)
        }
    }

    private static func ready(_ state: ConsoleState, _ grid: inout Grid, _ body: Screens.Body) {
        let g = state.glyphs
        guard !state.steps.isEmpty else {
            grid.put("Nothing to migrate.", x: body.x, y: body.y, style: .bold)
            return
        }
        let steps = state.steps.count == 1 ? "in 1 step" : "in \(state.steps.count) steps"
        grid.put(
            "Ready to migrate \(state.storeVersion) \(g.arrow) \(state.targetVersion) \(steps).", x: body.x, y: body.y,
            style: .bold)
        grid.put("m  migrate now, with a live progress bar", x: body.x + 2, y: body.y + 2)
        grid.put("s  step mode: pause after each entity mapping and each step", x: body.x + 2, y: body.y + 3)
        grid.put(
            "Each step is verified before the next begins. The original is kept beside the", x: body.x, y: body.y + 5,
            style: .dim, limit: body.width)
        grid.put(
            "store as \(backupName(state.storeName)), and put back if the plan stops half way.", x: body.x,
            y: body.y + 6, style: .dim, limit: body.width)
        planList(state, &grid, x: body.x, y: body.y + 8, width: body.width, rows: body.height - 8)
    }

    private static func running(_ state: ConsoleState, _ grid: inout Grid, _ body: Screens.Body) {
        guard let progress = state.run.progress else {
            grid.put("Starting…", x: body.x, y: body.y, style: .bold)
            return
        }
        let g = state.glyphs
        let step = state.steps.indices.contains(progress.step - 1) ? state.steps[progress.step - 1] : nil
        let title = step.map { "\($0.versions(arrow: g.arrow))\(g.separator)\(how($0))" } ?? progress.pass
        grid.put(
            "Step \(progress.step)/\(progress.stepCount)  \(title)", x: body.x, y: body.y, style: .bold,
            limit: body.width)
        let barWidth = body.width - 7
        grid.put(Screens.bar(progress.fraction, width: barWidth, glyphs: g), x: body.x, y: body.y + 2, style: .good)
        grid.put(
            String(format: "%4d%%", Int((progress.fraction * 100).rounded(.down))), x: body.x + barWidth + 1,
            y: body.y + 2, style: .bold)
        if case .pausedAfterStep(let done) = state.mode {
            let next = state.steps.indices.contains(done) ? ": \(state.steps[done].versions(arrow: g.arrow))" : ""
            grid.put(
                "Step \(done) done and verified. Enter runs step \(done + 1)\(next).", x: body.x, y: body.y + 3,
                style: .accent, limit: body.width)
        } else if let done = state.run.gatheringStep {
            let doing = state.run.gatheringNote ?? "gathering what it shows\(g.ellipsis)"
            grid.put(
                "Step \(done) done and verified; \(doing) (\(Int(progress.elapsed + state.run.progressAge)) s)",
                x: body.x, y: body.y + 3, style: .accent, limit: body.width)
        } else {
            grid.put(
                facts(
                    progress, age: state.run.progressAge, glyphs: g, width: body.width, paused: state.run.pausedSeconds),
                x: body.x, y: body.y + 3, limit: body.width)
        }
        let half = body.width / 2
        let listed = planList(
            state, &grid, x: body.x, y: body.y + 5, width: half - 1, rows: min(state.steps.count + 1, 7),
            running: progress.step)
        if step?.kind == .mapping {
            mappingOrder(
                state, progress, &grid,
                Screens.Body(x: body.x, y: body.y + 6 + listed, width: half - 1, height: body.height - 6 - listed))
        }
        let pane = paneArea(state)
        for row in 0..<pane.height { grid.put(String(g.vertical), x: pane.x - 2, y: pane.y + row, style: .dim) }
        if case .paused(let report) = state.mode {
            paused(report, state, &grid, pane)
        } else if let last = state.run.results.last {
            StepPane.render(last, state, &grid, pane, heading: "Step \(last.index)")
        } else if let step {
            planned(step, &grid, pane)
        }
    }

    /// `lightweight, in place`, `mapping: A` or `handler`: the same words the plan, the headless printer and the result use.
    private static func how(_ step: ConsoleState.Step) -> String {
        if step.kind == .handler { return "the app's handler, in one transaction" }
        if step.kind == .mapping {
            return "mapping: "
                + step.mappings.map(\.pass).reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }.joined(
                    separator: " then ")
        }
        return "lightweight, in place"
    }

    /// `stage 1/3 · create instances · 10000/20004 rows · 18000 rows/s · 12 s · ETA 17 s`, each stage in its own unit.
    /// `paused`: seconds the plan waited on a person or was stopped, left out of the elapsed time
    /// and of the rate behind the ETA, and said apart.
    static func facts(
        _ progress: MigrationProgress, age: Double, glyphs g: Glyphs, width: Int = .max, paused: Double = 0
    ) -> String {
        var facts = [stageName(progress.stage, glyphs: g)]
        if progress.rowsTotal > 0 {
            facts.append("\(progress.rowsDone)/\(progress.rowsTotal) \(progress.unit.rawValue)")
        }
        let rate = progress.unit == .rows && progress.rowsPerSecond >= 1 ? "\(Int(progress.rowsPerSecond)) rows/s" : nil
        if let rate { facts.append(rate) }
        let elapsed = progress.elapsed + age, working = max(elapsed - paused, 0)
        facts.append("\(Int(working)) s")
        if paused >= 0.5 { facts.append("paused \(Int(paused.rounded())) s") }
        // The engine's estimate comes from the rate over all its time; the pauses were no work.
        let workShare = progress.elapsed > 0 ? max(progress.elapsed - paused, 0) / progress.elapsed : 1
        if let remaining = progress.remaining.map({ $0 * workShare }), remaining - age >= 0.5 {
            facts.append("ETA \(Int((remaining - age).rounded(.up))) s")
        }
        // On a narrow terminal the rate gives way first: the time left matters more.
        if DisplayWidth.of(facts.joined(separator: g.separator)) > width, let rate { facts.removeAll { $0 == rate } }
        return facts.joined(separator: g.separator)
    }

    /// The plan's steps with their kinds, ticked when done and lit while running; returns the rows used.
    @discardableResult
    static func planList(
        _ state: ConsoleState, _ grid: inout Grid, x: Int, y: Int, width: Int, rows: Int, running: Int? = nil
    ) -> Int {
        guard rows > 1 else { return 0 }
        let g = state.glyphs
        grid.put("Plan", x: x, y: y, style: .bold)
        let current = (running ?? 1) - 1
        let first = max(0, min(current - (rows - 1) / 2, state.steps.count - (rows - 1)))
        // Before a run, a plan longer than its rows says so and where the rest is.
        let more = running == nil && state.steps.count > rows - 1 ? state.steps.count - (rows - 2) : 0
        if more > 0 {
            grid.put(
                "\(g.ellipsis) \(more) more steps: the Plan screen (4) lists them all", x: x, y: y + rows - 1,
                style: .dim, limit: width)
        }
        for (offset, index) in (first..<state.steps.count).prefix(rows - 1 - (more > 0 ? 1 : 0)).enumerated() {
            let step = state.steps[index]
            let lit = index == current && running != nil
            let mark = index < state.run.results.count ? g.check : (lit ? g.pointer : " ")
            let name = "\(mark) \(index + 1). \(step.versions(arrow: g.arrow))"
            let kind = "[\(step.kind)]"
            let text = name.count + kind.count + 2 <= width ? name + "  " + kind : name
            grid.put(text, x: x, y: y + 1 + offset, style: lit ? .reverse : .normal, limit: width)
        }
        return min(rows, state.steps.count + 1)
    }

    /// A mapping step's entity mappings in order: ticked when done (all of them once the step
    /// validates, verifies or swaps), the running one lit and kept in view with its position, and
    /// the stage named on the line above (``stageName(_:glyphs:)``): a presenter's audience follows the
    /// order down a list longer than the screen.
    private static func mappingOrder(
        _ state: ConsoleState, _ progress: MigrationProgress, _ grid: inout Grid, _ area: Screens.Body
    ) {
        let g = state.glyphs
        let order = state.allMappings.filter { $0.pass == progress.pass }
        guard area.height > 1, !order.isEmpty else { return }
        let report: StepReport?
        if case .paused(let paused) = state.mode { report = paused } else { report = nil }
        let running = order.firstIndex { mapping in
            report.map { $0.next == mapping.name } ?? (mapping.name == progress.entityMapping)
        }
        let window = ListWindow(
            selected: running ?? (progress.isAfterEntityMappings ? order.count - 1 : 0), count: order.count,
            height: area.height - 1)
        let position =
            running.map { "\($0 + 1)/\(order.count)" } ?? (window.count > window.height ? "\(order.count)" : "")
        grid.put(
            "Mapping order (\(progress.pass))", x: area.x, y: area.y, style: .bold,
            limit: area.width - position.count - 1)
        grid.put(position, x: area.x + area.width - position.count, y: area.y, style: .dim)
        for (row, index) in window.rows.enumerated() {
            let mapping = order[index]
            let lit = index == running
            let done =
                report.map { index + 1 <= $0.index && $0.stage == progress.stage }
                ?? (progress.isAfterEntityMappings || index + 1 < progress.entityMappingIndex)
            let mark = lit ? g.pointer : (done ? g.check : " ")
            grid.put(
                "\(mark) \(index + 1). \(mapping.name)", x: area.x, y: area.y + 1 + row,
                style: lit ? .reverse : .normal, limit: area.width)
        }
    }

    /// `stage 1/3 · create instances`: which of a mapping step's three stages runs; the work
    /// after them by its own name.
    static func stageName(_ stage: MigrationProgress.Stage, glyphs g: Glyphs) -> String {
        switch stage {
        case .createInstances: return "stage 1/3\(g.separator)create instances"
        case .createRelationships: return "stage 2/3\(g.separator)create relationships"
        case .validate: return "stage 3/3\(g.separator)validate and save"
        default: return stage.rawValue
        }
    }

    /// What the running step will do, before any step has finished.
    private static func planned(_ step: ConsoleState.Step, _ grid: inout Grid, _ area: Screens.Body) {
        grid.put("This step", x: area.x, y: area.y, style: .bold)
        let lines = (step.changes.isEmpty ? step.findings : step.changes).flatMap { wrap($0, width: area.width - 2) }
        for (index, line) in lines.enumerated() where index + 1 < area.height {
            grid.put("  " + line, x: area.x, y: area.y + 1 + index, limit: area.width)
        }
    }

    /// The right-hand pane of the Migrate screen: a pause, a result, or what the step will do.
    static func paneArea(_ state: ConsoleState) -> Screens.Body {
        let body = Screens.body(state), half = body.width / 2
        return Screens.Body(x: body.x + half + 2, y: body.y + 5, width: body.width - half - 2, height: body.height - 5)
    }

    /// The furthest a pause's pane scrolls (j/k while paused): its last line on its last row.
    /// After a step, the pane is the step's result; after an entity mapping, what it made.
    static func pauseLastTop(_ state: ConsoleState) -> Int {
        let area = paneArea(state), lines: [PaneLine]
        switch state.mode {
        case .paused(let report): lines = pausedLines(report, state, width: area.width)
        case .pausedAfterStep:
            guard let last = state.run.results.last else { return 0 }
            lines = StepPane.lines(last, state, width: area.width, heading: "Step \(last.index)")
        default: return 0
        }
        return max(0, lines.count - Panes.visibleRows(area, lines: lines.count))
    }

    /// A step-mode pause: what the entity mapping made so far, and a few rows before → after,
    /// the values the mapping changed lit (new ones too), the rest named in one dim line; the
    /// pane scrolls (``ConsoleState/paneTop``) under j/k while paused.
    private static func paused(_ report: StepReport, _ state: ConsoleState, _ grid: inout Grid, _ area: Screens.Body) {
        Panes.draw(
            pausedLines(report, state, width: area.width), top: state.pane.top, focused: false, area, &grid,
            glyphs: state.glyphs, canFocus: false, hint: ": j/k scroll")
    }

    private static func pausedLines(_ report: StepReport, _ state: ConsoleState, width: Int) -> [PaneLine] {
        let g = state.glyphs
        var lines: [PaneLine] = [
            PaneLine(text: "Paused after \(report.entityMapping)", style: .bold),
            PaneLine(text: "(\(report.stage.rawValue)) \(report.rowsCreated) destination rows so far"),
            PaneLine(text: "Next: \(report.next ?? "validation")", style: .accent), PaneLine(text: ""),
        ]
        if report.samples.isEmpty {
            lines += report.sampleRows.map { PaneLine(text: $0, style: .dim) }
        }
        for sample in report.samples {
            lines.append(
                PaneLine(text: (sample.source.map { "\($0) \(g.arrow) " } ?? "new ") + sample.destination, style: .bold)
            )
            if !sample.sourceOnly.isEmpty {
                let text = "from the source: " + sample.sourceOnly.joined(separator: ", ")
                for (index, piece) in wrap(text, width: width - 4).enumerated() {
                    lines.append(PaneLine(text: piece, style: .normal, indent: index == 0 ? 2 : 4))
                }
            }
            for value in sample.values where value.changed {
                let before = value.read.map { "\($0) \(g.arrow) " } ?? value.before.map { "\($0) \(g.arrow) " }
                let text = "\(value.name): " + (before ?? "(new) ") + value.after
                for (index, piece) in wrap(text, width: width - 4).enumerated() {
                    lines.append(PaneLine(text: piece, style: .accent, indent: index == 0 ? 2 : 4))
                }
            }
            let same = sample.values.filter { !$0.changed }.map(\.name)
            if !same.isEmpty {
                lines.append(PaneLine(text: "the same: " + same.joined(separator: ", "), style: .dim, indent: 2))
            }
        }
        return lines
    }

    static func backupName(_ store: String) -> String {
        let url = URL(fileURLWithPath: store)
        return url.deletingPathExtension().lastPathComponent + "~"
            + (url.pathExtension.isEmpty ? "" : "." + url.pathExtension)
    }

    /// `text` in lines of at most `width` columns, broken between words; a word wider than a
    /// line is broken where ``DisplayWidth/piece(of:columns:)`` says.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = [], line = ""
        let width = max(width, 1)
        for word in text.split(separator: " ") {
            var word = Substring(word)
            if DisplayWidth.of(line) + DisplayWidth.of(word) + 1 > width, !line.isEmpty {
                lines.append(line); line = ""
            }
            while DisplayWidth.of(word) > width {
                let piece = DisplayWidth.piece(of: word, columns: width)
                guard !piece.isEmpty else { break }
                lines.append(String(piece))
                word = word.dropFirst(piece.count)
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
