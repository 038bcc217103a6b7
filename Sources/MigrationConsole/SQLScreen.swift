/// The Plan screen's SQL view: the selected step's statements, as `chrysalis plan --sql` prints
/// them, over the whole body so long statements have room. Every line wraps at the body's width
/// (never cut: a reviewer reads every statement whole), and the view scrolls.
enum SQLScreen {
    /// One line of the view as laid out for a width.
    struct Line: Equatable {
        var text: String
        var style: CellStyle
    }

    /// Rows of the body the lines scroll in (the first row is the heading).
    static func visibleRows(_ state: ConsoleState) -> Int {
        max(Screens.body(state).height - 1, 1)
    }

    /// The largest first line that still fills the view: scrolling stops there.
    static func lastTop(_ state: ConsoleState, step: Int) -> Int {
        max(lines(state, step: step).count - visibleRows(state), 0)
    }

    static func render(_ state: ConsoleState, _ view: ConsoleState.SQLView, _ grid: inout Grid, _ body: Screens.Body) {
        let g = state.glyphs
        let all = lines(state, step: view.step)
        let rows = visibleRows(state)
        let top = min(view.top, lastTop(state, step: view.step))
        let shown = min(rows, all.count - top)
        let position = all.isEmpty ? "" : "lines \(top + 1)–\(top + shown) of \(all.count)"
        if state.steps.indices.contains(view.step) {
            let step = state.steps[view.step]
            grid.put(
                "SQL of step \(view.step + 1)/\(state.steps.count): \(step.versions(arrow: g.arrow))  [\(step.kind)]",
                x: body.x, y: body.y,
                style: .bold, limit: body.width - position.count - 2)
        }
        grid.put(position, x: body.x + body.width - position.count, y: body.y, style: .dim)
        for (offset, line) in all.dropFirst(top).prefix(rows).enumerated() {
            grid.put(line.text, x: body.x, y: body.y + 1 + offset, style: line.style, limit: body.width)
        }
    }

    /// Every line of `step`'s SQL, wrapped to the body's width: where it runs, then each part's
    /// title, notes and statements (or why it runs row by row in Swift).
    static func lines(_ state: ConsoleState, step: Int) -> [Line] {
        let width = Screens.body(state).width
        let g = state.glyphs
        func wrapped(_ text: String, _ style: CellStyle, first: String = "", next: String) -> [Line] {
            wrap(g.plain(text), width: width, first: first, next: next).map { Line(text: $0, style: style) }
        }
        if state.sqlPending {
            return wrapped("Compiling the SQL (it reads the store's schema and writes nothing)…", .dim, next: "")
        }
        guard state.sql.indices.contains(step) else {
            return wrapped(
                "The SQL could not be compiled: \(state.sqlProblem ?? "no statements for this step").", .bad, next: "")
        }
        let sql = state.sql[step]
        var lines = wrapped("Runs \(sql.summary).", .dim, next: "  ")
        for part in sql.parts {
            lines.append(Line(text: "", style: .normal))
            if let reason = part.rowByRow {
                lines += wrapped(
                    "\(part.title): row by row in Swift (\(reason))", .accent, first: "-- ", next: "--    ")
                continue
            }
            lines += wrapped(part.title, .bold, first: "-- ", next: "--    ")
            for note in part.notes { lines += wrapped(note, .dim, first: "--   ", next: "--     ") }
            for statement in part.statements { lines += wrapped(statement + ";", .normal, next: "    ") }
        }
        return lines
    }

    /// `text` in lines of at most `width` characters, broken at spaces where it can be and
    /// inside a word only when the word alone is wider than a line; the first line starts with
    /// `first`, the others with `next`.
    static func wrap(_ text: String, width: Int, first: String, next: String) -> [String] {
        var lines: [String] = []
        var line = first
        var prefix = first
        for word in text.split(separator: " ", omittingEmptySubsequences: true).map(String.init) {
            var word = word
            while true {
                let separator = line.count > prefix.count ? " " : ""
                if line.count + separator.count + word.count <= width {
                    line += separator + word
                    break
                }
                if line.count > prefix.count {
                    lines.append(line)
                    (line, prefix) = (next, next)
                    continue
                }
                // A word wider than a whole line: as much as fits, the rest on the next.
                let piece = DisplayWidth.piece(of: word, columns: max(width - line.count, 1))
                lines.append(line + piece)
                word = String(word.dropFirst(piece.count))
                (line, prefix) = (next, next)
            }
        }
        if line.count > prefix.count || lines.isEmpty { lines.append(line) }
        return lines
    }
}
