import ObjectModel

/// How an app upgrades its store, and so which steps a plan takes from the store's version to the
/// target: each of Core Data's ways by name, and Chrysalis's own.
///
/// - ``automatic``: Core Data's automatic migration (`NSMigratePersistentStoresAutomaticallyOption`
///   with `NSInferMappingModelAutomaticallyOption`). It looks for a mapping model from the store's
///   model to the destination model, by their entity hashes, and runs it; finding none, it infers
///   one *straight from the one to the other*; failing that, it refuses the store
///   (`NSMigrationMissingMappingModelError`, 134140). It never chains: a store at WordPress 19 with
///   only the 20 → 21 mapping model at hand is refused (Apple's "Core Data Model Versioning and
///   Data Migration Programming Guide", Lightweight Migration; WordPress's
///   `CoreDataMigrationTests`, which expect exactly that refusal).
/// - ``iterative``: one step per consecutive pair of versions, the mapping model for the pair where
///   one is given and inferred otherwise: what an app's own iterative migrator does (WordPress's
///   and WooCommerce's `CoreDataIterativeMigrator`).
/// - ``progressive``: Chrysalis's own chaining: a mapping model's step wherever one given starts at
///   the version reached, and one inferred step straight across each stretch no mapping model
///   covers. Going straight keeps data a walk through every version would lose (an attribute
///   removed in one version and added back in a later one) and turns a sixty-version upgrade into
///   one step. The default.
/// - ``staged(_:)``: the stages an app registers with iOS 17's `NSStagedMigrationManager`
///   (``StagedMigration``), their handlers run as steps of their own.
public enum MigrationStrategy: Sendable, CustomStringConvertible {
    /// Core Data's automatic migration: one mapping model for the exact pair, else one inferred step, else refused.
    case automatic
    /// One step per consecutive pair of versions (mapping models used where given for the pair).
    case iterative
    /// Chrysalis's chaining: mapping models where given, straight inference between them.
    case progressive
    /// The stages an app registers (``StagedMigration``).
    case staged(StagedMigration)

    /// The strategy's name, as `--strategy` takes it.
    public var description: String {
        switch self {
        case .automatic: return "automatic"
        case .iterative: return "iterative"
        case .progressive: return "progressive"
        case .staged: return "staged"
        }
    }

    /// Whether the strategy's steps follow the order of versions (iterative and progressive walk
    /// it; automatic goes straight, staged follows its stages).
    var walksVersions: Bool {
        switch self {
        case .iterative, .progressive: return true
        case .automatic, .staged: return false
        }
    }

    /// Whether the strategy infers straight from wherever the store is, so a store at no version
    /// of the bundle can start from its own archived model (``OwnModelSource``).
    var infersStraight: Bool {
        switch self {
        case .automatic, .progressive: return true
        case .iterative, .staged: return false
        }
    }

    /// One step of the route, before its kind is worked out.
    struct Leg {
        var source: ModelBundle.Version
        var destination: ModelBundle.Version
        /// The mapping models for this leg, in the order given; empty for an inferred leg.
        var mappings: [MappingModel]
        var reason: String
        /// A staged migration's handler, run on the store at `source` (which is `destination`).
        var handler: StageHandlerStep? = nil
    }

    /// The legs from `start` to `end` by this strategy.
    func legs(
        from start: ModelBundle.Version, to end: ModelBundle.Version, bundle: ModelBundle,
        mappings: [MappingModel]
    ) throws -> [Leg] {
        guard let startIndex = bundle.versions.firstIndex(of: start), let endIndex = bundle.versions.firstIndex(of: end)
        else { return [] }
        // Core Data's automatic migration knows no order of versions: it takes the store's model
        // to the model the app opens, whichever came first (Wire's `store2-49-0` is at 2.24.1's
        // hashes; Bridge SDK's `SBBDataModel` is newer than the `SBBDataModelV…` named after it).
        if case .automatic = self {
            let route = Route(versions: bundle.versions, mappings: mappings, end: endIndex)
            return startIndex == endIndex ? [] : [route.automaticLeg(startIndex)]
        }
        guard startIndex <= endIndex else { throw backwards(from: start, to: end, bundle: bundle) }
        let route = Route(versions: bundle.versions, mappings: mappings, end: endIndex)
        switch self {
        case .automatic:
            return []
        case .staged(let staged):
            return try staged.route(from: start, to: end, bundle: bundle).map { part in
                switch part {
                case let .inferred(source, destination, reason):
                    return Leg(source: source, destination: destination, mappings: [], reason: reason)
                case .handler(let step):
                    return Leg(
                        source: step.version, destination: step.version, mappings: [], reason: step.reason,
                        handler: step)
                }
            }
        case .iterative, .progressive:
            var legs: [Leg] = []
            var at = startIndex
            while at < endIndex {
                let leg = route.mappingLeg(at) ?? inferredLeg(at, route)
                legs.append(leg.leg)
                at = leg.to
            }
            return legs
        }
    }

    /// The error for a store after its target in the order of versions, which this strategy walks.
    private func backwards(from start: ModelBundle.Version, to end: ModelBundle.Version, bundle: ModelBundle)
        -> MigrationError
    {
        let order: String
        switch bundle.versionOrder {
        case .byName: order = "by their names, the bundle stating no order"
        case .stated(let source): order = "as \(source) states it"
        }
        return MigrationError(
            .wrongModel,
            """
            the store is at \(start.name), which comes after \(end.name) in the order of versions (\(order)); \
            \(self) migration does not go backwards
            """,
            fix:
                """
                choose a target after \(start.name) with --to, state the app's order of versions with --order \
                or \(bundle.name).xcdatamodeld.order, or migrate as Core Data's automatic migration does, \
                which knows no order (--strategy automatic)
                """)
    }

    /// The inferred step that leaves version `at`: straight to where the next mapping model
    /// starts or to the end (``progressive``), or to the next version with new hashes (``iterative``).
    private func inferredLeg(_ at: Int, _ route: Route) -> (leg: Leg, to: Int) {
        let versions = route.versions, source = versions[at]
        let to: Int
        let reason: String
        if case .iterative = self {
            // Versions with the store's hashes need no step, and the store still reads as the
            // first of them (Core Data's source-model look-up), so the step starts from it.
            to = (at + 1..<route.end).first { versions[$0].entityHashes != source.entityHashes } ?? route.end
            let skipped = to - at - 1
            reason =
                "iterative: one step per consecutive pair of versions"
                + (skipped == 0
                    ? ""
                    : " (\(skipped) in between share\(skipped == 1 ? "s" : "") \(source.name)'s hashes: nothing to migrate there)")
        } else {
            let nextMapped = (at + 1..<route.end).first { !route.mappingsLeaving($0).isEmpty }
            to = nextMapped ?? route.end
            let skipped = to - at - 1
            let across = skipped == 0 ? "" : ", across \(skipped) version\(skipped == 1 ? "" : "s") in between"
            reason =
                nextMapped == nil
                ? """
                progressive: no mapping model covers \(source.name) → \(versions[to].name), so one step is \
                inferred straight to it\(across)
                """
                : "progressive: inferred straight to \(versions[to].name), where the next mapping model starts\(across)"
        }
        return (Leg(source: source, destination: versions[to], mappings: [], reason: reason), to)
    }

    /// The error for an inferred leg that cannot be inferred: every change at fault, and what
    /// would get the store there.
    func notInferable(_ inference: InferredMapping, bundle: ModelBundle) -> MigrationError {
        let changes = inference.blockers.map(\.description).joined(separator: "; ")
        let pair = "\(inference.sourceVersion) → \(inference.destinationVersion)"
        let fix =
            """
            write a mapping model for \(pair) (Name.mapping.yaml or an Xcode .xcmappingmodel) and pass it with \
            --mappings
            """
        var error: MigrationError
        switch self {
        case .automatic:
            error = MigrationError(
                .wrongModel,
                "Core Data's automatic migration refuses this store: no mapping model is for exactly \(pair), and one cannot be inferred "
                    + """
                    (\(changes)); Core Data says \"Can't find mapping model for migration\" \
                    (NSMigrationMissingMappingModelError, 134140)
                    """,
                fix: fix
                    + """
                    , or migrate the way the app does when it chains mapping models (--strategy iterative or \
                    progressive)
                    """
            )
        case .staged:
            error = MigrationError(
                .wrongModel,
                """
                staged migration cannot infer \(pair): \(changes); Core Data says \"Persistent store migration \
                failed, missing mapping model.\"
                """,
                fix:
                    """
                    add a custom stage for \(pair) whose willMigrate handler prepares the data, or a version in \
                    between
                    """
            )
        case .iterative, .progressive:
            error = MigrationError(.wrongModel, "\(pair) needs a mapping model: \(changes)", fix: fix)
        }
        error.step = pair
        return error
    }
}
