import Foundation
import ObjectModel
import SQLiteStore

/// Proves a model history migratable on Linux: for every version of a bundle, a store made at
/// that version (rows for every entity, links for every relationship, edge values) is migrated
/// to the target by a ``MigrationStrategy`` (as the app migrates on devices), through the mapping models given
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
        /// The steps its plan has (0 for the target itself, or when no plan could be made).
        package var steps: Int
        /// The step its way failed at (`Model 9 → Model 10`), when it failed at one: what
        /// failures are grouped by.
        package var failingStep: String?
        /// What kind of failure (``MigrationError/Kind``: `wrongModel` for a step Core Data
        /// refuses, `generatedData` for a store the check could not make valid, …).
        package var failure: String?
        /// How long its check took: making its store and running and checking its way (or, when
        /// the ways share their steps, its first step, and the walk that starts at it).
        package var seconds: Double = 0

        init(version: String, steps: Int, error: Error? = nil) {
            self.version = version
            self.steps = steps
            ok = error == nil
            self.error = error.map { "\($0)" }
            failingStep = (error as? MigrationError)?.step
            // A full disk is the environment's failure, whatever step it stopped.
            failure = error.map {
                SpaceCheck.isFullDisk($0)
                    ? MigrationError.Kind.noSpace.rawValue : MigrationError.converting($0).kind.rawValue
            }
        }

        /// The outcome with the check's own store files (`version-3.sqlite` in a scratch
        /// folder, removed when the run ends) called what they are: a path no one can open
        /// afterwards only hides the message's point.
        func sayingScratchStores(in directory: URL) -> Outcome {
            guard let text = error,
                let pattern = try? NSRegularExpression(
                    pattern: NSRegularExpression.escapedPattern(for: directory.path) + "/?[a-z]+-[0-9]+\\.sqlite")
            else { return self }
            var said = self
            said.error = pattern.stringByReplacingMatches(
                in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "the store the check made")
            return said
        }
    }

    /// A version not checked, and why: it sorts after the target, or Core Data refuses it.
    package struct Skipped: Sendable, Encodable {
        package var version: String
        package var reason: String
    }

    package var bundle: ModelBundle
    package var mappings: [MappingModel]
    package var strategy: MigrationStrategy
    package var options: MigrationOptions
    /// Rows per entity in each version's store (edge values first).
    package var rows: Int
    /// Rows for the root entities the app's file beside its bundle names, instead of ``rows``.
    package var entityRows = HistoryRows()
    /// The version every store is migrated to (default: the bundle's current version).
    package var target: String
    /// The versions to make stores at (default: every version up to the target).
    package var versions: Set<String>?

    package init(
        bundle: ModelBundle, mappings: [MappingModel] = [], strategy: MigrationStrategy = .progressive,
        options: MigrationOptions = MigrationOptions(), rows: Int = 12, target: String? = nil
    ) {
        self.bundle = bundle
        self.mappings = mappings
        self.strategy = strategy
        self.options = options
        self.rows = rows
        self.target = target ?? bundle.currentVersionName
    }

    /// The versions a run checks: those up to the target that Core Data loads.
    package var checkedVersions: [ModelBundle.Version] {
        let end = bundle.versions.firstIndex { $0.name == target } ?? bundle.versions.count - 1
        return bundle.versions.prefix(end + 1).filter {
            (versions?.contains($0.name) ?? true) && $0.storeRefusal == nil
        }
    }

    /// The versions a run does not check, each with why: named in the report, never left out silently.
    package var skipped: [Skipped] {
        let end = bundle.versions.firstIndex { $0.name == target } ?? bundle.versions.count - 1
        return bundle.versions.enumerated().compactMap { index, version in
            guard versions?.contains(version.name) ?? true else { return nil }
            if index > end {
                return Skipped(
                    version: version.name, reason: "sorts after the target, \(target), so no store at it migrates there"
                )
            }
            return version.storeRefusal.map {
                Skipped(version: version.name, reason: $0.verdictWords + ": " + $0.problem.message)
            }
        }
    }

    /// Checks every version up to the target, in stores made under `directory` (each removed
    /// when checked), as many at once as there are processors: each version's store is its own.
    /// `progress` hears each version as it starts, one call at a time. Outcomes are in the
    /// bundle's order. Iterative, the steps the versions' ways share are checked once
    /// (``runSharingSteps(_:in:progress:)``).
    package func run(
        in directory: URL,
        progress: @escaping @Sendable (_ started: Int, _ count: Int, _ version: String) -> Void = { _, _, _ in }
    ) -> [Outcome] {
        outcomes(in: directory, progress: progress).map { $0.sayingScratchStores(in: directory) }
    }

    private func outcomes(in directory: URL, progress: @escaping @Sendable (Int, Int, String) -> Void) -> [Outcome] {
        let versions = checkedVersions
        if case .iterative = strategy, versions.count > 2 {
            return runSharingSteps(versions, in: directory, progress: progress)
        }
        let results = Slots<Outcome>(count: versions.count)
        DispatchQueue.concurrentPerform(iterations: versions.count) { index in
            let version = versions[index]
            results.started { progress($0, versions.count, version.name) }
            let path = directory.appendingPathComponent("version-\(index).sqlite").path
            defer { StoreFiles.remove(path) }
            let started = Date()
            var outcome: Outcome
            do {
                outcome = Outcome(version: version.name, steps: try check(version, at: path))
            } catch {
                outcome = Outcome(version: version.name, steps: 0, error: error)
            }
            outcome.seconds = Date().timeIntervalSince(started)
            results.set(index, outcome)
        }
        return results.values.compactMap { $0 }
    }

    /// Makes the store for `version` at `path`, migrates it and checks each step; returns the
    /// number of steps.
    func check(_ version: ModelBundle.Version, at path: String) throws -> Int {
        let plan = try plannedStore(version, at: path)
        try migrate(plan, from: version, at: path)
        return plan.steps.count
    }

    /// The store for `version` made at `path`, checked against its own model, and its plan to
    /// `end` (the target, by default).
    func plannedStore(_ version: ModelBundle.Version, at path: String, to end: String? = nil) throws -> MigrationPlan {
        try version.requireStorable(for: "to make a store")
        let store = try PersistentStore.create(at: path, model: version.model)
        var generator = DataGenerator(model: version.model, seed: 11)
        generator.edgeValues = true
        generator.rowsPerConcreteEntity = true
        generator.rowsPerEntity = entityRows.byEntity
        try generator.fill(store, rows: rows)
        // A store made at a version carries that version's hashes, or no step from it means anything.
        guard try store.metadata().versionHashes == version.entityHashes else {
            try? store.close()
            throw MigrationError(
                .verification, "the store made at \(version.name) does not carry \(version.name)'s hashes",
                fix: "report this: the store was made wrong")
        }
        // A store the model forbids (a required to-many the generator could not fill) would fail
        // a step for the data's sake: said apart, never as the step's.
        do {
            let layout = try store.layout(for: version.model)
            try store.withReadConnection { connection in
                var rules = ModelRuleCheck(layout: layout, connection: connection)
                rules.place = "the store generated at \(version.name)"
                try rules.validate()
            }
        } catch let error as MigrationError where error.kind == .validation {
            try? store.close()
            throw MigrationError(
                .generatedData,
                "\(error.message); the generated data breaks \(version.name)'s own rules, so no step was tried",
                fix: "give check-history more --rows, so that every object can have the partners its model requires")
        }
        try store.close()
        return try MigrationPlan.make(
            store: path, bundle: bundle, mappings: mappings, to: end ?? target, strategy: strategy)
    }

    /// Runs `plan` on the store at `path`, made at `version`, checking each inferred step as it
    /// completes and the end against the hashes of the plan's target.
    func migrate(_ plan: MigrationPlan, from version: ModelBundle.Version, at path: String) throws {
        guard !plan.steps.isEmpty else { return }
        let recorder = InferredStepRecorder(before: try ObjectSnapshot.read(path, model: version.model))
        var options = options
        options.afterStep = { completed in try recorder.check(completed) }
        _ = try MigrationRunner.run(plan, store: path, options: options, keepBackup: false)
        let hashes = try PersistentStore.open(at: path).metadata().versionHashes
        guard let end = bundle.version(named: plan.targetVersion), hashes == end.entityHashes else {
            throw MigrationError(
                .verification, "the migrated store does not carry \(plan.targetVersion)'s hashes",
                fix: "report this: the plan ended elsewhere")
        }
    }
}

/// Values filled in by concurrent checks, and the count of checks started.
final class Slots<Value>: @unchecked Sendable {
    private var slots: [Value?]
    private var startedCount = 0
    private let lock = NSLock()

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func started(_ report: (Int) -> Void) {
        lock.withLock {
            startedCount += 1
            report(startedCount)
        }
    }

    func set(_ index: Int, _ value: Value) { lock.withLock { slots[index] = value } }

    var values: [Value?] { lock.withLock { slots } }
}
