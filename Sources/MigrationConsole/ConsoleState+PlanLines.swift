/// The Plan screen as lines, each selectable: a step's heading, its mapping models, its changes
/// and findings. Selecting lines rather than steps is what reaches every finding of a step with
/// more of them than the screen has rows (Wire's `store2-3` has 59).
extension ConsoleState {
    /// One line of the Plan screen.
    package struct PlanLine: Sendable, Equatable {
        /// The text, without the pointer.
        package var text: String
        /// The step it belongs to, 0-based.
        package var step: Int
        /// Whether it is the step's heading.
        package var isHeading: Bool
        /// Whether it says data is dropped (drawn as bad news).
        package var isDrop: Bool
    }

    /// Sets the Plan screen's lines: every line, or under a filter (`f`) the lines that hold its
    /// text, each with its step's heading.
    mutating func filterPlanLines() {
        let all = allPlanLines
        guard let filter = find.planFilter, !filter.isEmpty else {
            planLines = all
            return
        }
        let steps = Set(all.filter { !$0.isHeading && $0.text.localizedCaseInsensitiveContains(filter) }.map(\.step))
        planLines = all.filter { line in
            line.isHeading
                ? steps.contains(line.step) || line.text.localizedCaseInsensitiveContains(filter)
                : line.text.localizedCaseInsensitiveContains(filter)
        }
    }

    /// Lays out every line of the Plan screen, in order, whatever the filter, then filters them.
    mutating func layOutPlanLines() {
        allPlanLines = Self.planLines(steps: steps, blocked: blocked, glyphs: glyphs)
        filterPlanLines()
    }

    private static func planLines(steps: [Step], blocked: String?, glyphs: Glyphs) -> [PlanLine] {
        var lines: [PlanLine] = []
        if let blocked {
            lines.append(PlanLine(text: "Cannot migrate: \(blocked)", step: -1, isHeading: false, isDrop: true))
        }
        for (index, step) in steps.enumerated() {
            lines.append(
                PlanLine(
                    text: "\(index + 1). \(step.versions(arrow: glyphs.arrow))  [\(step.kind)]", step: index,
                    isHeading: true, isDrop: false))
            if !step.mappings.isEmpty {
                let passes = step.mappings.map(\.pass).reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }
                lines.append(
                    PlanLine(
                        text: "    mappings: \(passes.joined(separator: " then "))", step: index, isHeading: false,
                        isDrop: false))
            }
            for change in step.changes where !step.findings.contains(where: { $0.contains(change) }) {
                lines.append(PlanLine(text: "    \(change)", step: index, isHeading: false, isDrop: false))
            }
            for finding in step.findings {
                lines.append(
                    PlanLine(
                        text: "    \(finding)", step: index, isHeading: false,
                        isDrop: finding.hasPrefix("data dropped") || finding.hasPrefix("cannot run")
                    ))
            }
        }
        return lines
    }

    /// The line of `step`'s heading.
    package func planLine(ofStep step: Int) -> Int {
        planLines.firstIndex { $0.step == step && $0.isHeading } ?? 0
    }

    /// The step the Plan screen's selected line belongs to.
    var selectedPlanStep: Int? {
        let lines = planLines, selected = selection[Screen.plan.rawValue]
        // The line saying why the plan cannot run belongs to no step (-1).
        return lines.indices.contains(selected) && lines[selected].step >= 0 ? lines[selected].step : nil
    }
}
