/// `y`: what the screen has selected, to the terminal's clipboard (OSC 52, so over SSH too).
extension ConsoleState {
    /// `y`: what the screen has selected, to the terminal's clipboard: a step's SQL (its
    /// statements, one a line), the selected plan line, the kept original's path after a run.
    mutating func copySelected() -> [ConsoleEffect] {
        var text: String?, what = ""
        if screen == .plan, let view = overlays.sql, sql.indices.contains(view.step) {
            text = sql[view.step].parts.flatMap(\.statements).map { $0 + ";" }.joined(separator: "\n")
            what = "step \(view.step + 1)'s SQL"
        } else if screen == .plan, planLines.indices.contains(selection[Screen.plan.rawValue]) {
            text = planLines[selection[Screen.plan.rawValue]].text.trimmingCharacters(in: .whitespaces)
            what = "the plan line"
        } else if screen == .migrate, let backup = run.outcome?.backup {
            text = backup
            what = "the original's path"
        }
        guard let text, !text.isEmpty else {
            find.note = "Nothing to copy here: y copies a plan line, a step's SQL, or the original's path"
            return []
        }
        find.note = "Copied \(what) (\(text.count) characters) to the terminal's clipboard"
        return [.copy(text)]
    }
}
