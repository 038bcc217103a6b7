import Foundation
import Logging
import ObjectModel
import SQLiteStore

/// The steps from a store's version to a target version, each with its kind, why the plan takes
/// it, and what a person should know before running it. Planning reads the store's metadata (and
/// counts the rows of entities a step removes); it never writes.
public struct MigrationPlan: Sendable {
    /// How one step is done.
    public enum Kind: Sendable {
        /// Inferred, in place with SQL.
        case lightweight(InferredMapping)
        /// Mapping models, run in order as passes into one destination.
        case mapping([MappingModel])
        /// A staged migration's handler, run on the store at the step's version.
        case handler(StageHandlerStep)

        /// `lightweight`, `mapping` or `handler`.
        public var name: String { id.rawValue }

        /// The kind without what it carries: what a report or a screen shows and compares.
        public var id: Name {
            switch self {
            case .lightweight: return .lightweight
            case .mapping: return .mapping
            case .handler: return .handler
            }
        }
    }

    /// One step.
    public struct Step: Sendable {
        /// The version migrated from.
        public var source: ModelBundle.Version
        /// The version migrated to.
        public var destination: ModelBundle.Version
        /// How.
        public var kind: Kind
        /// Data dropped, renames, required values without defaults, tables rewritten.
        public var findings: [String]
        /// Why the plan takes this step, by its strategy (``MigrationStrategy``).
        public var reason: String = ""
        /// Every change between the two versions, structured (``PlannedChange``).
        public var changes: [PlannedChange] = []
        /// Both versions laid out as Core Data would make them, predicted once for the plan's
        /// estimates (cost, space, derived attributes), which need no store.
        package var predicted: PredictedLayouts
        /// An inferred step's SQL on the predicted layouts: what it rebuilds, rewrites and counts.
        var predictedSQL: LightweightSQL?
    }

    /// A step's two versions' layouts, predicted from their models.
    package struct PredictedLayouts: Sendable {
        package var source: StoreLayout
        package var destination: StoreLayout
    }

    /// The store's version.
    public var storeVersion: String
    /// The version the plan ends at.
    public var targetVersion: String
    /// The steps, in order; empty when the store is already there.
    public var steps: [Step]
    /// Mapping models that fit no step (a folder or an app bundle usually holds older ones too).
    public var unusedMappings: [String] = []
    /// What the store holds beyond its model (history, an app's tables, indexes or triggers
    /// Core Data did not make) and what the plan does with each, said for people.
    public var beyondModel: [String] = []
    /// Why each unused mapping model is not used, said for people.
    public var notes: [String] = []
    /// Unused mapping models that fit no version of the bundle at all (their versions are not in
    /// it, or their entity hashes match none): a named one is an error, not a note.
    public var unfitMappings: [String] = []

    /// A plan of no steps, from `storeVersion` to `targetVersion`: what the console browses when
    /// no plan could be made, with the reason said beside it.
    package static func none(from storeVersion: String, to targetVersion: String) -> MigrationPlan {
        MigrationPlan(storeVersion: storeVersion, targetVersion: targetVersion, steps: [])
    }

    /// The error for mappings someone named on purpose that fit no version of the bundle; one that
    /// fits versions the plan does not pass through (before the store, beyond `--to`) is a note.
    ///
    /// - Parameter names: The mapping models named on purpose.
    /// - Returns: The error, or `nil` when each fits a version of the bundle.
    public func unusedError(_ names: [String]) -> MigrationError? {
        let unfit = names.filter(unfitMappings.contains)
        guard !unfit.isEmpty else { return nil }
        return MigrationError(
            .wrongModel, "mapping \(unfit.joined(separator: ", ")) fits no version of this model bundle",
            fix: "give the mapping made for this bundle's versions, or the bundle the mapping was made for")
    }

    /// Plans the migration of the store at `path` to `target` (default: the bundle's current
    /// version) with the given mapping models available, the way `strategy` migrates (Chrysalis's
    /// ``MigrationStrategy/progressive`` by default).
    ///
    /// - Parameters:
    ///   - path: The store file.
    ///   - bundle: The model bundle with the store's version and the target.
    ///   - mappings: The mapping models available.
    ///   - target: The version to migrate to; `nil` for the bundle's current version.
    ///   - strategy: How the plan chooses its steps (`MigrationStrategy`).
    ///   - checks: Checks stricter than Core Data's inference; none unless given.
    /// - Returns: The plan; no steps when the store is already at the target.
    /// - Throws: A `MigrationError` when the store is at no version of the bundle or past the
    ///   target, the target does not exist, or a step cannot be inferred; a `StoreError` when the
    ///   store cannot be read; a `ModelFileError` for a version or mapping that cannot be used.
    public static func make(
        store path: String, bundle: ModelBundle, mappings: [MappingModel] = [], to target: String? = nil,
        strategy: MigrationStrategy = .progressive, checks: InferenceChecks = []
    ) throws -> MigrationPlan {
        // A run a crash stopped mid-plan left the store at an intermediate version; the next run
        // puts the original back first, so the plan starts from the original, read in its backup.
        try PlanJournal.requireReadable(store: path)
        let pending = PlanJournal.pendingOriginal(store: path)
        // No whole-file check here: Core Data makes none, and it would make a step that only adds
        // an attribute cost as much as the file is large (`chrysalis-bench --scenario
        // add-attribute` holds that step to milliseconds). A step that reads rows meets a damaged
        // page as it reads it, before anything is swapped, and the plan is undone; a schema-only
        // step reads no row. The full check is `MigrationOptions.checksPages` (`migrate
        // --check-pages`).
        let store = try PersistentStore.open(at: pending ?? path)
        let metadata = try store.metadata()
        let (start, end, compatible) = try ends(
            of: path, store: store, hashes: metadata.versionHashes, bundle: bundle,
            target: target ?? bundle.currentVersionName, strategy: strategy)
        MigrationLog.plan.debug(
            "\(path): hashes match \(compatible.map(\.name).joined(separator: ", ")); read as \(start.name)")
        let fitting = MappingFit(mappings, bundle: bundle)
        let (legs, predicted) = try checkedLegs(
            from: start, to: end, compatible: compatible, bundle: bundle, fitting: fitting, strategy: strategy)
        var (unused, notes) = fitting.unused(by: legs, from: start, to: end)
        notes += Self.orderNotes(bundle, steps: legs.count, strategy: strategy, targetNamed: target != nil)
        if pending != nil {
            notes.insert(
                "an earlier run was interrupted mid-plan: the run puts the original back first, at \(start.name)", at: 0
            )
        }
        log(legs, notes: notes)
        let first = StartingStore(
            path: path, store: store, version: start, compatible: compatible, layout: try store.layout(for: start.model)
        )
        let steps = try legs.enumerated().map { index, leg in
            try step(
                leg, first: index == 0 ? first : nil, strategy: strategy, bundle: bundle, checks: checks,
                predicted: PredictedLayouts(
                    source: predicted[leg.source.name] ?? StoreLayout(model: leg.source.model),
                    destination: predicted[leg.destination.name] ?? StoreLayout(model: leg.destination.model)))
        }
        if compatible.isEmpty, checks.contains(.foreignModel), let step = steps.first {
            try OwnModelSource.requireKinship(step, store: path, bundle: bundle)
        }
        let extras = try store.withReadConnection { try $0.extras(beyond: first.layout) }
        return MigrationPlan(
            storeVersion: start.name, targetVersion: end.name, steps: steps, unusedMappings: unused,
            beyondModel: BeyondTheModel.findings(extras, steps: steps), notes: notes,
            unfitMappings: fitting.unfit.map(\.name))
    }

    /// Each chosen step with its reason, and each note, for `--verbose`.
    private static func log(_ legs: [MigrationStrategy.Leg], notes: [String]) {
        for leg in legs { MigrationLog.plan.debug("step \(leg.source.name) → \(leg.destination.name): \(leg.reason)") }
        for note in notes { MigrationLog.plan.debug("note: \(note)") }
    }

    /// What a plan (or a history check, `walked`) rests on that the bundle does not say: a current
    /// version guessed (the target not named), or an order of versions taken from their names
    /// where the strategy walks them.
    package static func orderNotes(
        _ bundle: ModelBundle, steps: Int, strategy: MigrationStrategy, targetNamed: Bool, walked: Bool = false
    ) -> [String] {
        var notes: [String] = []
        if bundle.currentIsGuessed && !targetNamed {
            notes.append(
                """
                the target \(bundle.currentVersionName) is a guess: \(bundle.name) does not say which version is \
                current (`migrate` needs it named with --to)
                """)
        }
        if case .byName = bundle.versionOrder, steps > 1 || walked, strategy.walksVersions {
            notes.append(
                """
                the order of versions is their names' (\(bundle.versions.map(\.name).joined(separator: " → "))): \
                the bundle records none; state the app's in \(bundle.name).xcdatamodeld.order beside it, or with \
                --order
                """)
        }
        return notes
    }

    /// The plan's legs from `start` to `end` by `strategy`, refused now rather than when a step
    /// comes: a version Core Data refuses, or one Chrysalis cannot lay out, stops the plan that
    /// passes through it (and no other), and every mapping must resolve against its two versions.
    /// With the legs, each version's predicted layout, by name, worked out once for the plan.
    private static func checkedLegs(
        from start: ModelBundle.Version, to end: ModelBundle.Version, compatible: [ModelBundle.Version],
        bundle: ModelBundle,
        fitting: MappingFit, strategy: MigrationStrategy
    ) throws -> (legs: [MigrationStrategy.Leg], predicted: [String: StoreLayout]) {
        let legs =
            compatible.isEmpty
            ? [OwnModelSource.leg(from: start, to: end, bundle: bundle)]
            : try strategy.legs(from: start, to: end, bundle: bundle, mappings: fitting.named)
        // Only the mapping models a step runs can map one thing twice in it.
        try MappingFit.refuseDuplicates(legs.flatMap(\.mappings))
        var predicted: [String: StoreLayout] = [:]
        for version in [start] + legs.map(\.destination) where predicted[version.name] == nil {
            let purpose = version.name == start.name ? "as the store's version" : "as a step of this plan"
            // A version Core Data refuses is not laid out.
            try version.requireUsable(for: purpose)
            let layout = StoreLayout(model: version.model)
            try version.requireStorable(for: purpose, layout: layout)
            predicted[version.name] = layout
        }
        for leg in legs {
            for mapping in leg.mappings {
                _ = try mapping.resolved(source: leg.source.model, destination: leg.destination.model)
            }
        }
        return (legs, predicted)
    }

    /// The version the store is read as, the target version, and every version with the store's
    /// hashes (none when the store is read as its own archived model: ``OwnModelSource``).
    private static func ends(
        of path: String, store: PersistentStore, hashes: [String: Data], bundle: ModelBundle, target targetName: String,
        strategy: MigrationStrategy
    ) throws -> (start: ModelBundle.Version, end: ModelBundle.Version, compatible: [ModelBundle.Version]) {
        let compatible = bundle.versions(matchingHashes: hashes)
        // Versions differing only in what is not hashed (renaming identifiers, delete rules,
        // defaults) all match the store. Already at the target means nothing to do; otherwise
        // Core Data reads the store as the first version whose hashes match (its source-model
        // look-up), and so does Chrysalis: the renaming identifiers of that version pair the
        // properties. (Wire's 2.46 and 2.47 share hashes; 2.47 alone gives Conversation a stray
        // renaming identifier, and Wire's migration tests keep every conversation of a 2.47 store.)
        guard let end = bundle.version(named: targetName) else {
            throw MigrationError(
                .notFound, "\(bundle.name) has no version \(targetName)",
                fix: "use one of: \(bundle.versions.map(\.name).joined(separator: ", "))")
        }
        if compatible.isEmpty,
            let own = try OwnModelSource.version(
                of: path, store: store, hashes: hashes, bundle: bundle, strategy: strategy)
        {
            return (own, end, [])
        }
        guard let start = compatible.first(where: { $0.name == targetName }) ?? compatible.first else {
            let nearest = bundle.nearestVersion(toHashes: hashes)
            throw MigrationError(
                .wrongModel,
                "\(path) is not at any version of \(bundle.name)"
                    + (nearest.map {
                        " (nearest: \($0.version.name), differing entities \($0.differingEntities.joined(separator: ", ")))"
                    } ?? ""),
                fix: "give the model bundle the store was made with; `chrysalis inspect \(path)` shows its own model")
        }
        return (start, end, compatible)
    }

    /// The store as the plan's first step finds it: only that step's findings read its rows.
    private struct StartingStore {
        let path: String
        let store: PersistentStore
        let version: ModelBundle.Version
        let compatible: [ModelBundle.Version]
        let layout: StoreLayout
    }

    /// One leg as a step: its kind (a mapping, or an inference Core Data would make), and its
    /// findings; for the first step, checked against the store's rows.
    private static func step(
        _ leg: MigrationStrategy.Leg, first: StartingStore?, strategy: MigrationStrategy, bundle: ModelBundle,
        checks: InferenceChecks, predicted: PredictedLayouts
    ) throws -> Step {
        if let handler = leg.handler {
            return Step(
                source: leg.source, destination: leg.destination, kind: .handler(handler),
                findings: [
                    """
                    runs the app's \(handler.moment.rawValue) handler: what it saves is validated then, and undone \
                    with the plan if anything after it fails
                    """
                ],
                reason: leg.reason, predicted: predicted)
        }
        let inference = InferredMapping(from: leg.source, to: leg.destination, checks: checks)
        let kind: Kind
        if !leg.mappings.isEmpty {
            kind = .mapping(leg.mappings)
        } else if inference.isInferable {
            kind = .lightweight(inference)
        } else {
            throw strategy.notInferable(inference, bundle: bundle)
        }
        var notes: [String] = []
        if let first {
            notes += sameHashes(as: first.version, in: first.compatible)
            if case .lightweight = kind, !inference.requirements.isEmpty {
                // What Core Data would refuse this store for, said now rather than mid-plan.
                let unmet = try first.store.readObjects(first.layout) { try inference.unmetRequirements(reader: $0) }
                if !unmet.isEmpty { throw inference.unmetRequirementsError(unmet, store: first.path) }
                notes += inference.requirements.map { $0.finding(checked: true) }
            }
        } else if case .lightweight = kind {
            notes += inference.requirements.map { $0.finding(checked: false) }
        }
        let changes = try PlannedChange.all(inference, kind: kind, store: first.map { ($0.store, $0.layout) })
        let layout = first?.layout ?? predicted.source
        var predictedSQL: LightweightSQL?
        if case .lightweight = kind {
            predictedSQL = LightweightSQL(
                inference: inference, source: predicted.source, destination: predicted.destination)
        }
        return Step(
            source: leg.source, destination: leg.destination, kind: kind,
            findings: notes
                + findings(
                    inference, kind: kind, changes: changes, counted: first != nil, source: layout,
                    destination: predicted.destination),
            reason: leg.reason, changes: changes, predicted: predicted, predictedSQL: predictedSQL)
    }

    /// A note when other versions share the store's hashes but pair properties differently.
    private static func sameHashes(as start: ModelBundle.Version, in compatible: [ModelBundle.Version]) -> [String] {
        let identifiers = { (model: ManagedObjectModel) in
            model.entities.map { entity in
                "\(entity.canonicalName):"
                    + (entity.attributes.map(\.property) + entity.relationships.map(\.property)).map(\.canonicalName)
                    .sorted().joined(separator: ",")
            }.sorted()
        }
        let differing = compatible.filter { $0.name != start.name && identifiers($0.model) != identifiers(start.model) }
            .map(\.name)
        guard !differing.isEmpty else { return [] }
        return [
            """
            source: \(differing.joined(separator: ", ")) share\(differing.count == 1 ? "s" : "") the store's \
            hashes with \(start.name) but not its renaming identifiers; the store is read as \(start.name), the \
            first of them, as Core Data reads it
            """
        ]
    }

    /// The step's changes said for people, each with its prefix (`data dropped:`, `added:`…),
    /// then what the step rewrites and what it cannot infer. A later step's losses (not
    /// `counted`: the store holds their rows only once the steps before have run) say why they
    /// have no count.
    private static func findings(
        _ inference: InferredMapping, kind: Kind, changes: [PlannedChange], counted: Bool, source: StoreLayout,
        destination: StoreLayout
    ) -> [String] {
        var findings: [String] = []
        // Inferred steps drop what the destination lacks; with a mapping model, only what no
        // entity mapping reads is lost: what one reads is carried, and said so.
        let mapped: Bool
        if case .mapping = kind { mapped = true } else { mapped = false }
        // What is lost first, then what is carried, then the rest, each kind in the model's order.
        // An entity removed with no rows loses nothing, and is not said.
        for change in changes where change.isLoss && !(change.kind == .entityRemoved && change.rows == 0) {
            let uncounted =
                !counted && change.rows == nil
                ? " (rows not counted: the store holds them only once the steps before have run)" : ""
            findings.append(
                "data dropped: \(change.sentence)" + (mapped ? " (no entity mapping reads it)" : "") + uncounted)
        }
        for change in changes where change.dropsData {
            guard let carriedBy = change.carriedBy else { continue }
            findings.append("carried: \(change.sentence), not in \(inference.destinationVersion): \(carriedBy)")
        }
        // Additions and other changes say what they are themselves (`Book.author added`).
        let prefixes: [(String, Set<InferredMapping.Change.Kind>)] = [
            ("rename: ", [.entityRenamed, .renamed]), ("required: ", [.madeRequired]), ("type: ", [.retyped]),
            ("", [.newEntity, .added, .madeOptional, .madeToMany, .orderChanged, .parentChanged]),
        ]
        for (prefix, kinds) in prefixes {
            findings += changes.filter { kinds.contains($0.kind) }.map { prefix + $0.sentence }
        }
        if case .lightweight = kind {
            let methods = LightweightSQL(inference: inference, source: source, destination: destination).tableMethods()
            let rebuilt = methods.filter { $0.value == .rebuilt }.keys.sorted()
            if !rebuilt.isEmpty {
                findings.append("rewrites whole tables (their storage changes): \(rebuilt.joined(separator: ", "))")
            }
            findings += inference.blockers.map { "needs a mapping model: \($0.description)" }
        } else {
            findings += inference.blockers.map { "not inferable (handled by the mapping model): \($0.description)" }
        }
        if case .mapping = kind { findings.append("rewrites every table into a new store (mapping models)") }
        return findings
    }
}
