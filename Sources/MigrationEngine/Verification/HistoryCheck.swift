import Foundation
import ObjectModel
import SQLiteStore

/// Proves a model history migratable on Linux: for every version of a bundle, a store made at
/// that version (rows for every entity, links for every relationship, edge values) is migrated
/// to the target as Core Data would (straight, or `--stepwise`), through the mapping models given
/// where they match and the policies registered, and each inferred step is checked: every row,
/// value, default and link it must keep (``InferredStepCheck``); each mapping step is validated
/// by its own stage 3; the end is checked against the target's hashes. What `chrysalis
/// check-history` runs, and what an app's CI can run on every model change.
package struct HistoryCheck: Sendable {
    /// One version's outcome.
    package struct Outcome: Sendable, Encodable {
        /// The version the store was made at.
        package var version: String
        /// Whether it reached the target with everything checked.
        package var ok: Bool
        /// What failed, with the step and the fix; `nil` when ok.
        package var error: String?
        /// The steps its plan has (0 for the target itself).
        package var steps: Int
    }

    package var bundle: ModelBundle
    package var mappings: [MappingModel]
    package var route: PlanRoute
    package var options: MigrationOptions
    /// Rows per root entity in each version's store (edge values first).
    package var rows: Int
    /// The version every store is migrated to (default: the bundle's current version).
    package var target: String
    /// The versions to make stores at (default: every version up to the target).
    package var versions: Set<String>?

    package init(bundle: ModelBundle, mappings: [MappingModel] = [], route: PlanRoute = .automatic,
                options: MigrationOptions = MigrationOptions(), rows: Int = 12, target: String? = nil) {
        self.bundle = bundle
        self.mappings = mappings
        self.route = route
        self.options = options
        self.rows = rows
        self.target = target ?? bundle.currentVersionName
    }

    /// Checks every version up to the target, in stores made under `directory` (each removed
    /// when checked), as many at once as there are processors: each version's store is its own.
    /// `progress` hears each version as it starts, one call at a time. Outcomes are in the
    /// bundle's order.
    package func run(in directory: URL, progress: @escaping @Sendable (_ started: Int, _ count: Int, _ version: String) -> Void = { _, _, _ in }) -> [Outcome] {
        let end = bundle.versions.firstIndex { $0.name == target } ?? bundle.versions.count - 1
        let versions = bundle.versions.prefix(end + 1).filter { self.versions?.contains($0.name) ?? true }
        let results = OutcomeBox(count: versions.count)
        DispatchQueue.concurrentPerform(iterations: versions.count) { index in
            let version = versions[index]
            results.started { progress($0, versions.count, version.name) }
            let path = directory.appendingPathComponent("version-\(index).sqlite").path
            defer { StoreFiles.remove(path) }
            do {
                let steps = try check(version, at: path)
                results.set(index, Outcome(version: version.name, ok: true, error: nil, steps: steps))
            } catch {
                results.set(index, Outcome(version: version.name, ok: false, error: "\(error)", steps: 0))
            }
        }
        return results.outcomes
    }

    /// Makes the store for `version` at `path`, migrates it and checks each step; returns the
    /// number of steps.
    func check(_ version: ModelBundle.Version, at path: String) throws -> Int {
        try version.requireUsable(for: "to make a store")
        let store = try PersistentStore.create(at: path, model: version.model)
        var generator = DataGenerator(model: version.model, seed: 11)
        generator.edgeValues = true
        generator.rowsPerConcreteEntity = true
        try generator.fill(store, rows: rows)
        // A store the model forbids (too few rows to give every object a partner a required
        // one-to-one needs) would fail a step for the data's sake: said apart, never as the step's.
        do {
            let layout = try store.layout(for: version.model)
            try store.withReadConnection { connection in
                var rules = ModelRuleCheck(layout: layout, connection: connection)
                rules.place = "the store generated at \(version.name)"
                try rules.validate()
            }
        } catch let error as MigrationError where error.kind == .validation {
            try? store.close()
            throw MigrationError(.generatedData, "\(error.message); the generated data breaks \(version.name)'s own rules, so no step was tried",
                                 fix: "give check-history more --rows, so that every object can have the partners its model requires")
        }
        try store.close()
        let plan = try MigrationPlan.make(store: path, bundle: bundle, mappings: mappings, to: target, route: route)
        guard !plan.steps.isEmpty else { return 0 }
        let recorder = InferredStepRecorder(before: try ObjectSnapshot.read(path, model: version.model))
        var options = options
        options.afterStep = { completed in try recorder.check(completed) }
        _ = try MigrationRunner.run(plan, store: path, options: options, keepBackup: false)
        let hashes = try PersistentStore.open(at: path).metadata().versionHashes
        guard let end = bundle.version(named: target), hashes == end.entityHashes else {
            throw MigrationError(.validation, "the migrated store does not carry \(target)'s hashes", fix: "report this: the plan ended elsewhere")
        }
        return plan.steps.count
    }

}

/// Outcomes filled in by concurrent checks, and the count of versions started.
private final class OutcomeBox: @unchecked Sendable {
    private var slots: [HistoryCheck.Outcome?]
    private var startedCount = 0
    private let lock = NSLock()

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func started(_ report: (Int) -> Void) {
        lock.withLock {
            startedCount += 1
            report(startedCount)
        }
    }

    func set(_ index: Int, _ outcome: HistoryCheck.Outcome) { lock.withLock { slots[index] = outcome } }

    var outcomes: [HistoryCheck.Outcome] { lock.withLock { slots.compactMap { $0 } } }
}
