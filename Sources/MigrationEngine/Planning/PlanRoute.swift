import ObjectModel

/// Which versions a plan visits on its way from the store's version to the target.
///
/// Core Data's automatic migration (`NSMigratePersistentStoresAutomaticallyOption` with
/// `NSInferMappingModelAutomaticallyOption`) looks for a mapping model from the store's model to
/// the destination model and, finding none, infers one *straight from the one to the other*: it
/// never visits the versions in between (Apple's "Core Data Model Versioning and Data Migration
/// Programming Guide", Lightweight Migration; the objc.io issue 4 article on migrations). That is
/// ``automatic``: one inferred step across each stretch that no given mapping model covers, and
/// progressive steps through the mapping models given. Going straight keeps data a walk through
/// every version would lose (an attribute removed in one version and added back in a later one)
/// and turns a sixty-version upgrade into one step. ``stepwise`` visits every version instead.
public enum PlanRoute: Sendable, Equatable {
    /// Core Data's: straight inference where no mapping model intervenes.
    case automatic
    /// One step per consecutive pair of versions (mapping models still used where given).
    case stepwise

    /// One step of the route, before its kind is worked out.
    struct Leg {
        var source: ModelBundle.Version
        var destination: ModelBundle.Version
        /// The mapping models for this leg, in the order given; empty for an inferred leg.
        var mappings: [MappingModel]
        var reason: String
    }

    /// The legs from `start` to `end`: a mapping model's step wherever one given starts at the
    /// version reached (and ends after it, not beyond `end`); otherwise an inferred step, straight
    /// to the next version a given mapping model starts from, or to `end` (``automatic``), or to
    /// the next version (``stepwise``).
    func legs(
        from start: ModelBundle.Version, to end: ModelBundle.Version, bundle: ModelBundle,
        mappings: [MappingModel]
    ) throws -> [Leg] {
        guard let startIndex = bundle.versions.firstIndex(of: start), let endIndex = bundle.versions.firstIndex(of: end) else { return [] }
        guard startIndex <= endIndex else {
            throw MigrationError(
                .wrongModel, "the store is at \(start.name), newer than \(end.name); Chrysalis does not migrate backwards",
                fix: "choose a target after \(start.name) with --to")
        }
        let route = Route(versions: bundle.versions, mappings: mappings, end: endIndex)
        var legs: [Leg] = []
        var at = startIndex
        while at < endIndex {
            let leg = route.mappingLeg(at) ?? inferredLeg(at, route)
            legs.append(leg.leg)
            at = leg.to
        }
        return legs
    }

    /// The versions in order, the mapping models given, and where the route ends.
    private struct Route {
        let versions: [ModelBundle.Version]
        let mappings: [MappingModel]
        let end: Int
        let index: [String: Int]

        init(versions: [ModelBundle.Version], mappings: [MappingModel], end: Int) {
            (self.versions, self.mappings, self.end) = (versions, mappings, end)
            index = Dictionary(versions.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        }

        /// The mapping models that start at version `at` and lead forward, not past the end. A
        /// mapping model made from a version with `at`'s hashes starts there too: Core Data finds
        /// a mapping model by the store's hashes (WordPress 9, 10 and 11 share them, and the
        /// 11 → 12 mapping model is how a store at 9 reaches 12).
        func mappingsLeaving(_ at: Int) -> [MappingModel] {
            let leaving = mappings.filter { mapping in
                let starts =
                    mapping.sourceVersion == versions[at].name
                    || index[mapping.sourceVersion].map { versions[$0].entityHashes == versions[at].entityHashes } == true
                return starts && index[mapping.destinationVersion].map { $0 > at && $0 <= end } == true
            }
            guard let first = leaving.first else { return [] }
            // Several for one pair run as passes, in the order given; one destination per step.
            return leaving.filter { $0.destinationVersion == first.destinationVersion }
        }

        /// The mapping step that leaves version `at`, if a mapping model given does.
        func mappingLeg(_ at: Int) -> (leg: Leg, to: Int)? {
            let leaving = mappingsLeaving(at)
            guard let first = leaving.first, let to = index[first.destinationVersion] else { return nil }
            let names = leaving.map(\.name).joined(separator: ", ")
            // A mapping model made from another version with the store's hashes runs from that
            // version: the store is at it as much as at `at`, and the mapping names its properties.
            let source = index[first.sourceVersion].map { versions[$0] } ?? versions[at]
            let shared = source.name == versions[at].name ? "" : " (the store's hashes are \(source.name)'s too)"
            return (
                Leg(
                    source: source, destination: versions[to], mappings: leaving,
                    reason: "mapping model\(leaving.count == 1 ? "" : "s") \(names) given for \(source.name) → \(versions[to].name)\(shared)"), to
            )
        }
    }

    /// The inferred step that leaves version `at`: straight to where the next mapping model
    /// starts or to the end (``automatic``), or to the next version with new hashes (``stepwise``).
    private func inferredLeg(_ at: Int, _ route: Route) -> (leg: Leg, to: Int) {
        let versions = route.versions, source = versions[at]
        let to: Int
        let reason: String
        switch self {
        case .stepwise:
            // Versions with the store's hashes need no step, and the store still reads as the
            // first of them (Core Data's source-model look-up), so the step starts from it.
            to = (at + 1..<route.end).first { versions[$0].entityHashes != source.entityHashes } ?? route.end
            let skipped = to - at - 1
            reason =
                "--stepwise: one step per consecutive pair of versions"
                + (skipped == 0 ? "" : " (\(skipped) in between share\(skipped == 1 ? "s" : "") \(source.name)'s hashes: nothing to migrate there)")
        case .automatic:
            let nextMapped = (at + 1..<route.end).first { !route.mappingsLeaving($0).isEmpty }
            to = nextMapped ?? route.end
            let skipped = to - at - 1
            let across = skipped == 0 ? "" : ", across \(skipped) version\(skipped == 1 ? "" : "s") in between"
            reason =
                nextMapped == nil
                ? "no mapping model covers \(source.name) → \(versions[to].name): inferred straight to it as Core Data does\(across)"
                : "inferred straight to \(versions[to].name), where the next mapping model starts\(across)"
        }
        return (Leg(source: source, destination: versions[to], mappings: [], reason: reason), to)
    }

    /// The error for an inferred leg Core Data could not infer: every change at fault, and what
    /// would get the store there.
    func notInferable(_ inference: InferredMapping, bundle: ModelBundle) -> MigrationError {
        let changes = inference.blockers.map(\.description).joined(separator: "; ")
        let pair = "\(inference.sourceVersion) → \(inference.destinationVersion)"
        var error = MigrationError(
            .wrongModel, "\(pair) needs a mapping model: \(changes)",
            fix: "write a mapping model for \(pair) (Name.mapping.yaml or an Xcode .xcmappingmodel) and pass it with --mappings"
                + (self == .automatic ? "; Core Data's automatic migration would refuse this store too" : ""))
        error.step = pair
        return error
    }
}
