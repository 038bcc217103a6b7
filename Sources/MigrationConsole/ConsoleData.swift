import Foundation
import MigrationEngine
import ObjectModel

extension ConsoleState {
    /// The state for a store about to be migrated with `plan`: every version of `bundle` (with
    /// its entities and its changes from the previous one), every step's entity mappings, and
    /// every step's SQL, compiled here once with the `options` the migration will run with (its
    /// registered policies and manager hook decide what runs as SQL and what row by row).
    ///
    /// With `compilingSQL` false the SQL is left to the caller, who compiles it after the first
    /// frame and sends ``ConsoleAction/sqlCompiled(_:problem:)``: an 84-step plan's SQL takes
    /// seconds, which the first frame must not wait for.
    package init(
        store path: String, bundle: ModelBundle, plan: MigrationPlan, options: MigrationOptions, width: Int,
        height: Int, glyphs: Glyphs, compilingSQL: Bool = true
    ) {
        let versions = bundle.versions.enumerated().map { index, version -> Version in
            let hashes = version.entityHashes
            let entities = version.model.entities.sorted { $0.name < $1.name }.map { entity in
                Entity(
                    name: entity.name, parent: entity.parentName,
                    hash: hashes[entity.name]?.base64EncodedString() ?? "",
                    properties: entity.attributes.map {
                        "\($0.name): \($0.attributeType.displayName)\($0.isOptional ? "?" : "")"
                    }
                        + entity.relationships.map {
                            "\($0.name) → \($0.destinationEntityName)\($0.isToMany ? " (to-many)" : "")"
                        })
            }
            var changes: [String] = [], summary = ""
            if index > 0 {
                let inference = InferredMapping(from: bundle.versions[index - 1], to: version)
                changes =
                    inference.changes.map(\.description)
                    + inference.blockers.map { "needs a mapping model: \($0.description)" }
                summary = Self.summary(inference.changes.map(\.kind) + inference.blockers.map(\.kind))
            }
            return Version(
                name: version.name, isCurrent: version.name == bundle.currentVersionName,
                isStore: version.name == plan.storeVersion,
                entities: entities, changes: changes, changeSummary: summary)
        }
        self.init(
            storeName: URL(fileURLWithPath: path).lastPathComponent, bundleName: bundle.name,
            storeVersion: plan.storeVersion,
            targetVersion: plan.targetVersion, versions: versions, steps: plan.steps.map(Step.init(planned:)),
            width: width, height: height, glyphs: glyphs)
        if compilingSQL {
            (sql, sqlProblem) = Self.compiledSQL(plan, store: path, options: options)
        } else {
            sqlPending = true
        }
    }
}

extension ConsoleState {
    /// A version's changes at a glance: entities added and removed (`+1 −2 ent`), else how many
    /// properties changed (`3 prop`); empty when nothing did.
    static func summary(_ kinds: [InferredMapping.Change.Kind]) -> String {
        let added = kinds.filter { $0 == .newEntity }.count, removed = kinds.filter { $0 == .entityRemoved }.count
        if added + removed > 0 {
            return [added > 0 ? "+\(added)" : nil, removed > 0 ? "−\(removed)" : nil].compactMap { $0 }.joined(
                separator: " ") + " ent"
        }
        return kinds.isEmpty ? "" : "\(kinds.count) prop"
    }
}

extension ConsoleState.Step {
    /// A planned step as the console shows it: its entity mappings in order, or what it infers.
    init(planned step: MigrationPlan.Step) {
        var mappings: [ConsoleState.Mapping] = []
        var changes: [String] = []
        switch step.kind {
        case .mapping(let models):
            for model in models {
                let resolved =
                    (try? model.resolved(source: step.source.model, destination: step.destination.model)) ?? model
                mappings += resolved.entityMappings.map { entity in
                    ConsoleState.Mapping(
                        pass: model.name, name: entity.name, kind: entity.kind.rawValue, source: entity.sourceEntity,
                        destination: entity.destinationEntity, policy: entity.policyName,
                        properties: entity.propertyMappings.map { ($0.name, $0.expression?.description ?? "(unset)") })
                }
            }
        case .lightweight(let inference):
            changes = inference.changes.map(\.description)
        case .handler(let handler):
            changes = ["the app's \(handler.name) runs on the store at \(handler.version.name)"]
        }
        self.init(
            from: step.source.name, to: step.destination.name, kind: step.kind.id, mappings: mappings,
            findings: step.findings,
            changes: changes, reason: step.reason)
    }
}

extension StepResult {
    /// The result pane of a step the engine reports done, with `tables` of what it produced.
    package init(_ done: CompletedStep, tables: [Table]) {
        let report = done.report
        let entities = Set(report.rowsBefore.keys).union(report.rowsAfter.keys).sorted()
        let dropped = Self.drops(of: done.step, rowsBefore: report.rowsBefore)
        let how = done.step.kind.id.how(passes: report.passes)
        let verification: String
        switch done.step.kind {
        case .lightweight:
            verification =
                report.rowsAfter.isEmpty
                ? "schema checked against the destination model; no row was touched"
                : dropped.isEmpty
                    ? "schema checked; every entity's rows counted, the same before and after"
                    : """
                    schema checked; every kept entity's rows counted, the same before and after; what was dropped \
                    is listed above
                    """
        case .mapping:
            verification =
                (report.pagesChecked ? "SQLite quick check ok; " : "")
                + "every entity's rows reconciled with what the passes created"
        case .handler:
            verification =
                "every object the handler changed validated when it saved, as Core Data validates a context's save"
        }
        self.init(
            index: done.index, from: done.step.source.name, to: done.step.destination.name, how: how,
            seconds: report.duration,
            verification: verification,
            rows: entities.map { RowCount(entity: $0, before: report.rowsBefore[$0], after: report.rowsAfter[$0]) },
            tables: tables, dropped: dropped)
    }

    /// What `step` loses, as its plan says: each removed entity with its rows (`rowsBefore`, the
    /// step's own count, or the plan's), each removed property and link; never what a mapping
    /// reads and carries (``PlannedChange/isLoss``).
    package static func drops(of step: MigrationPlan.Step, rowsBefore: [String: Int]) -> [Drop] {
        step.changes.filter(\.isLoss).map { change in
            change.kind == .entityRemoved
                ? Drop(what: change.entity, rows: rowsBefore[change.entity] ?? change.rows, isEntity: true)
                : Drop(what: change.description, rows: change.rows, isEntity: false)
        }
    }
}

/// Why a plan the console opens on cannot run: the whole of it (`reason`, the error a
/// `migrate` would end with), and each step that cannot, by index, in one line.
package struct Blocked: Sendable, Equatable {
    package var reason: String
    package var steps: [Int: String]

    package init(reason: String, steps: [Int: String] = [:]) {
        (self.reason, self.steps) = (reason, steps)
    }
}

extension ConsoleState {
    /// The console opened on a plan that cannot run: said on the Plan screen, first, and on each
    /// step that cannot; `m` and `s` are refused.
    package mutating func block(_ blocked: Blocked) {
        self.blocked = blocked.reason
        for (index, reason) in blocked.steps where steps.indices.contains(index) {
            steps[index].findings.insert("cannot run: \(reason)", at: 0)
        }
    }
}
