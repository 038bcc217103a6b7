import Foundation
import MigrationEngine
import SQLiteStore

/// What `chrysalis plan` prints.
struct PlanReport: Encodable {
    struct Step: Encodable {
        var from: String
        var to: String
        var kind: MigrationPlan.Kind.Name
        /// Why the plan takes this step (the route).
        var reason: String
        var mappings: [String]
        var entityMappings: [String]
        var findings: [String]
        /// Every change, structured: `kind` (`removed`, `added`, `renamed`, `linksDropped`…),
        /// `entity`, `property`, `description`, and `rows` for what the first step drops.
        var changes: [PlannedChange]
        /// The statements the step runs (`--sql` only).
        var sql: SQL?
    }

    /// A step's SQL (`--sql`): where it runs, and its parts in order.
    struct SQL: Encodable {
        var summary: String
        var parts: [Part]
    }

    /// One part of a step's SQL.
    struct Part: Encodable {
        var title: String
        var statements: [Statement]
        /// Why it runs row by row in Swift instead, when it does.
        var rowByRow: String?
        var notes: [String]
    }

    /// One statement: its exact text with `?`, its arguments as SQL literals (or `:parameter`),
    /// and the text with them written in place, on one line.
    struct Statement: Encodable {
        var sql: String
        var arguments: [String]
        var text: String

        init(_ statement: SQLStatement) {
            sql = statement.sql
            arguments = statement.arguments.map { argument in
                switch argument {
                case .value(let value): value.literal
                case .parameter(let name): ":" + name
                }
            }
            text = StepStatements.Part.oneLine(statement)
        }
    }

    var store: String
    var storeVersion: String
    var targetVersion: String
    var steps: [Step]
    var unusedMappings: [String]
    /// What the store holds beyond its model, and what the plan does with each.
    var beyondModel: [String]
    /// Why each unused mapping model is not used, and what a run does first (an interrupted
    /// plan undone).
    var notes: [String]
    /// What later steps require of the rows, checked only when they run: while not empty, the
    /// plan runs only if the rows allow it (and `plan` exits 4).
    var checkedWhenRun: [String]

    init(_ plan: MigrationPlan, store: String) {
        self.store = store
        unusedMappings = plan.unusedMappings
        beyondModel = plan.beyondModel
        notes = plan.notes
        checkedWhenRun = plan.requirementsCheckedWhenRun
        storeVersion = plan.storeVersion
        targetVersion = plan.targetVersion
        steps = plan.steps.map { step in
            var mappings: [String] = [], entityMappings: [String] = []
            if case .mapping(let models) = step.kind {
                mappings = models.map(\.name)
                entityMappings = models.flatMap { model in model.entityMappings.map { "\(model.name): \($0.name)" } }
            }
            return Step(
                from: step.source.name, to: step.destination.name, kind: step.kind.id, reason: step.reason,
                mappings: mappings,
                entityMappings: entityMappings, findings: step.findings, changes: step.changes)
        }
    }

    /// Adds each step's statements, in plan order.
    mutating func attach(_ statements: [StepStatements]) {
        for (index, step) in statements.enumerated() where index < steps.count {
            steps[index].sql = SQL(
                summary: step.summary,
                parts: step.parts.map { part in
                    Part(
                        title: part.title, statements: part.statements.map(Statement.init), rowByRow: part.rowByRow,
                        notes: part.notes)
                })
        }
    }

    func json() throws -> String { try JSONOutput.encode(self) }

    func text() -> String {
        guard !steps.isEmpty else { return "\(store) is at \(storeVersion): nothing to do.\n" }
        var lines = ["\(store): \(storeVersion) → \(targetVersion), \(steps.count) step\(steps.count == 1 ? "" : "s")"]
        for (index, step) in steps.enumerated() {
            lines.append("")
            lines.append(
                "\(index + 1). \(step.kind.versions(from: step.from, to: step.to))  [\(step.kind)]\(step.mappings.isEmpty ? "" : "  " + step.mappings.joined(separator: " then "))"
            )
            lines.append("     why: \(step.reason)")
            for mapping in step.entityMappings { lines.append("     \(mapping)") }
            for finding in step.findings { lines.append("     • \(finding)") }
            if let sql = step.sql { lines += Self.text(sql) }
        }
        if !beyondModel.isEmpty { lines += ["", "Beyond the model:"] + beyondModel.map { "  • \($0)" } }
        if !notes.isEmpty { lines += ["", "Notes:"] + notes.map { "  • \($0)" } }
        if !checkedWhenRun.isEmpty {
            lines += ["", "Checked only when the step runs (the rows it needs are written by the steps before it):"]
            lines += checkedWhenRun.map { "  • \($0)" }
            lines.append(
                "`migrate` refuses the plan at that step if a row breaks one, and puts the original back; "
                    + "nothing is lost, but the plan is not known to run (exit status 4).")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A step's SQL as text: a heading per part, its notes as comments, each statement on a line.
    private static func text(_ sql: SQL) -> [String] {
        var lines = ["     SQL, \(sql.summary):"]
        for part in sql.parts {
            if let reason = part.rowByRow {
                lines.append("       -- \(part.title): row by row in Swift (\(reason))")
                continue
            }
            lines.append("       -- \(part.title)")
            lines += part.notes.map { "       --   \($0)" }
            lines += part.statements.map { "       \($0.text);" }
        }
        return lines
    }
}
