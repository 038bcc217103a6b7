import ArgumentParser
import Foundation
import MigrationEngine

/// `chrysalis plan`: the steps a migration would take, touching nothing.
struct PlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Show the steps that would migrate a store to a version, without touching it.",
        discussion: """
        From the store's version (found from its hashes) to the target, as Core Data's automatic \
        migration goes: a mapping step wherever a given mapping model starts from the version \
        reached, and elsewhere one lightweight step inferred straight across the versions no \
        mapping model covers (--stepwise: one step per consecutive pair instead). Each step says \
        why it is taken. A step Core Data could not infer is an error naming each change that \
        needs a mapping model. Findings say what data would be dropped, what is renamed or \
        retyped, and what becomes required.

        Examples:
          chrysalis plan App.sqlite --model App.xcdatamodeld
          chrysalis plan App.sqlite --model App.xcdatamodeld --mappings Mappings/ --json
        """
    )

    @OptionGroup var options: PlanOptions

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() throws {
        do {
            let (_, plan) = try options.plan()
            let report = PlanReport(plan, store: options.store)
            print(json ? try report.json() : report.text(), terminator: "")
        } catch {
            fail(error, touchingNothing: true)
        }
    }
}

/// What `chrysalis plan` prints.
struct PlanReport: Encodable {
    struct Step: Encodable {
        var from: String
        var to: String
        var kind: String
        /// Why the plan takes this step (the route).
        var reason: String
        var mappings: [String]
        var entityMappings: [String]
        var findings: [String]
    }

    var store: String
    var storeVersion: String
    var targetVersion: String
    var steps: [Step]
    var unusedMappings: [String]
    /// Why each unused mapping model is not used, and what a run does first (an interrupted
    /// plan undone).
    var notes: [String]

    init(_ plan: MigrationPlan, store: String) {
        self.store = store
        unusedMappings = plan.unusedMappings
        notes = plan.notes
        storeVersion = plan.storeVersion
        targetVersion = plan.targetVersion
        steps = plan.steps.map { step in
            var mappings: [String] = [], entityMappings: [String] = []
            switch step.kind {
            case .mapping(let models):
                mappings = models.map(\.name)
                entityMappings = models.flatMap { model in model.entityMappings.map { "\(model.name): \($0.name)" } }
            case .lightweight: break
            }
            return Step(from: step.source.name, to: step.destination.name, kind: step.kind.name, reason: step.reason, mappings: mappings,
                        entityMappings: entityMappings, findings: step.findings)
        }
    }

    func json() throws -> String { try JSONOutput.encode(self) }

    func text() -> String {
        guard !steps.isEmpty else { return "\(store) is at \(storeVersion): nothing to do.\n" }
        var lines = ["\(store): \(storeVersion) → \(targetVersion), \(steps.count) step\(steps.count == 1 ? "" : "s")"]
        for (index, step) in steps.enumerated() {
            lines.append("")
            lines.append("\(index + 1). \(step.from) → \(step.to)  [\(step.kind)]\(step.mappings.isEmpty ? "" : "  " + step.mappings.joined(separator: " then "))")
            lines.append("     why: \(step.reason)")
            for mapping in step.entityMappings { lines.append("     \(mapping)") }
            for finding in step.findings { lines.append("     • \(finding)") }
        }
        if !notes.isEmpty { lines += ["", "Notes:"] + notes.map { "  • \($0)" } }
        return lines.joined(separator: "\n") + "\n"
    }
}
