import ChrysalisCLI
import Demo
import Foundation
import MigrationEngine

/// Prints a demo's narration for people: the plan with why each step is what it is, each step's
/// result in the words progress used, what the demo does itself, and query results as tables.
final class DemoOutput: Sendable {
    private let counter = CounterLine()
    /// Text wraps at the terminal's width (at most 100 columns, for reading; 100 when the output
    /// is not a terminal), tables cut their cells to fit.
    static let width: Int = {
        var size = winsize()
        if isatty(STDOUT_FILENO) == 1, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 20 {
            return min(Int(size.ws_col) - 1, 100)
        }
        return 100
    }()

    /// Prints `text` wrapped to the narration's width.
    func say(_ text: String) { paragraph(text, indent: "") }

    /// Prints one event.
    func show(_ event: DemoRunner.Event) {
        switch event {
        case .message(let text):
            print("")
            paragraph(text, indent: "")
        case let .generating(done, total):
            counter.show("generating rows", done, total)
        case let .working(done, total):
            counter.show("the demo's own work: rows", done, total)
        case let .query(title, columns, rows):
            table(title, columns, rows)
        case .demoWork(let text):
            print("")
            paragraph(text, indent: "  ")
        case .lesson(let text):
            paragraph(text, indent: "     ")
        }
    }

    /// The plan: its route, and per step the versions, the kind, why, what changes and what to know.
    func showPlan(_ plan: MigrationPlan, defaultRoute: String?, staged: Bool, lessons: (String) -> String?) {
        let count = plan.steps.count == 1 ? "1 step" : "\(plan.steps.count) steps"
        print("")
        if let defaultRoute {
            paragraph(
                "The plan: \(plan.storeVersion) → \(plan.targetVersion) in \(count), one per version (iterative), as the worked example goes. "
                    + """
                    (`chrysalis migrate` takes its default, progressive route instead: \(defaultRoute); it skips \
                    versions no mapping model needs.)
                    """,
                indent: "")
        } else if staged {
            paragraph(
                "The plan: \(plan.storeVersion) → \(plan.targetVersion) in \(count), by the stages the app registers (staged migration, "
                    + "as iOS 17's NSStagedMigrationManager runs them): each handler is a step of its own.", indent: "")
        } else {
            paragraph(
                """
                The plan: \(plan.storeVersion) → \(plan.targetVersion) in \(count), by `chrysalis migrate`'s \
                default, progressive route.
                """,
                indent: "")
        }
        for (index, step) in plan.steps.enumerated() {
            print("\n  \(index + 1). \(step.versions) [\(step.kind.name)]")
            paragraph("why: " + why(step), indent: "     ")
            var changes: [String] = []
            if case .lightweight(let inference) = step.kind { changes = inference.changes.map(\.description) }
            if !changes.isEmpty { paragraph("changes: " + changes.joined(separator: "; "), indent: "     ") }
            for finding in step.findings where !changes.contains(where: finding.contains) {
                paragraph(finding, indent: "     ")
            }
            if case .handler = step.kind {
            } else if let lesson = lessons(step.destination.name) {
                paragraph(lesson, indent: "     ")
            }
        }
    }

    /// A step's end: how it was done (the words its progress line used) and how it was checked.
    func showStep(_ done: CompletedStep) {
        let report = done.report
        let how = done.step.kind.id.how(passes: report.passes)
        let rows = report.rowsAfter.values.reduce(0, +)
        let checked: String
        if case .handler = done.step.kind {
            // What the handler changed, in numbers: the entities whose rows it added or removed.
            let changed = Set(report.rowsBefore.keys).union(report.rowsAfter.keys).sorted().compactMap {
                entity -> String? in
                let before = report.rowsBefore[entity] ?? 0, after = report.rowsAfter[entity] ?? 0
                return before == after ? nil : "\(entity): \(before) → \(after) rows"
            }
            checked = "what it saved validated" + (changed.isEmpty ? "" : "; " + changed.joined(separator: ", "))
        } else {
            checked = report.rowsAfter.isEmpty ? "schema checked, no row touched" : "\(rows) rows verified"
        }
        print(
            "\nStep \(done.index)/\(done.count) done: \(done.step.versions), \(how), "
                + "\(String(format: "%.2f", report.duration)) s, \(checked).")
    }

    private func why(_ step: MigrationPlan.Step) -> String {
        switch step.kind {
        case .lightweight:
            return
                "Core Data can infer every change (\(step.reason)), so the step is lightweight: SQL on the store itself, "
                + "in one transaction, no mapping model."
        case .mapping(let models):
            let given = models.count == 1 ? "a mapping model is given" : "\(models.count) mapping models are given"
            return
                "\(given) for this pair of versions (\(models.map(\.name).joined(separator: " then "))), and Core Data "
                + "uses \(models.count == 1 ? "it" : "them") rather than infer: the step runs the three stages (create instances, relationships, "
                + "validate) into a new store."
        case .handler(let handler):
            return
                "the app's \(handler.moment.rawValue) handler runs on the store at \(handler.version.name), with objects it fetches, changes "
                + "and saves, in one transaction undone with the plan if anything fails."
        }
    }

    private func paragraph(_ text: String, indent: String) {
        var line = indent
        for word in text.split(separator: " ") {
            if line.count + word.count + 1 > Self.width, line.count > indent.count { print(line); line = indent }
            line += (line.count > indent.count ? " " : "") + word
        }
        if line.count > indent.count { print(line) }
    }

    private func table(_ title: String, _ columns: [String], _ rows: [[String]]) {
        print("\n  \(title)")
        let limit = max(12, (Self.width - 2) / max(columns.count, 1) - 2)
        let cells = [columns] + rows.map { $0.map { $0.count > limit ? String($0.prefix(limit - 3)) + "..." : $0 } }
        let widths = columns.indices.map { index in cells.map { index < $0.count ? $0[index].count : 0 }.max() ?? 0 }
        for (number, row) in cells.enumerated() {
            print(
                "  "
                    + row.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(
                        separator: "  "))
            if number == 0 { print("  " + widths.map { String(repeating: "─", count: $0) }.joined(separator: "  ")) }
        }
    }
}
