import ObjectModel

extension MigrationStrategy {
    /// The versions in order, the mapping models given, and where the route ends.
    struct Route {
        let versions: [ModelBundle.Version]
        let mappings: [MappingModel]
        let end: Int
        let index: [String: Int]

        init(versions: [ModelBundle.Version], mappings: [MappingModel], end: Int) {
            (self.versions, self.mappings, self.end) = (versions, mappings, end)
            index = Dictionary(versions.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        }

        /// Whether `mapping` starts at version `at`. A mapping model made from a version with
        /// `at`'s hashes starts there too: Core Data finds a mapping model by the store's hashes
        /// (WordPress 9, 10 and 11 share them, and the 11 → 12 mapping model is how a store at 9
        /// reaches 12).
        func starts(_ mapping: MappingModel, at: Int) -> Bool {
            mapping.sourceVersion == versions[at].name
                || index[mapping.sourceVersion].map { versions[$0].entityHashes == versions[at].entityHashes } == true
        }

        /// The mapping models that start at version `at` and lead forward, not past the end.
        func mappingsLeaving(_ at: Int) -> [MappingModel] {
            let leaving = mappings.filter { mapping in
                starts(mapping, at: at) && index[mapping.destinationVersion].map { $0 > at && $0 <= end } == true
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
            return (
                mappingLeg(
                    leaving, at: at, to: to, reason: "mapping model\(leaving.count == 1 ? "" : "s") \(names) given"), to
            )
        }

        /// Core Data's automatic migration from version `at` to the end: the mapping model whose
        /// two models have the store's hashes and the target's (`+[NSMappingModel
        /// mappingModelFromBundles:forSourceModel:destinationModel:]` finds one mapping model, by
        /// hashes), else one step inferred straight to the end.
        func automaticLeg(_ at: Int) -> Leg {
            let target = versions[end]
            let exact = mappings.filter { mapping in
                starts(mapping, at: at)
                    && index[mapping.destinationVersion].map { versions[$0].entityHashes == target.entityHashes }
                        == true
            }
            if let mapping = exact.first {
                let reason =
                    """
                    automatic: mapping model \(mapping.name) is for exactly this pair of models, found by their \
                    hashes as Core Data finds it
                    """
                return mappingLeg([mapping], at: at, to: end, reason: reason)
            }
            // Between them in the bundle's order only when the target comes later: Core Data's
            // automatic migration goes straight either way.
            let skipped = max(0, end - at - 1)
            let across = skipped == 0 ? "" : ", across \(skipped) version\(skipped == 1 ? "" : "s") in between"
            return Leg(
                source: versions[at], destination: target, mappings: [],
                reason:
                    """
                    automatic: no mapping model is for exactly \(versions[at].name) → \(target.name), so Core Data \
                    infers one, straight\(across)
                    """
            )
        }

        /// The step of `mappings` from `at` to `to`. A mapping model made from another version
        /// with the store's hashes runs from that version: the store is at it as much as at `at`,
        /// and the mapping names its properties.
        private func mappingLeg(_ mappings: [MappingModel], at: Int, to: Int, reason: String) -> Leg {
            let source = index[mappings[0].sourceVersion].map { versions[$0] } ?? versions[at]
            let shared = source.name == versions[at].name ? "" : " (the store's hashes are \(source.name)'s too)"
            return Leg(
                source: source, destination: versions[to], mappings: mappings,
                reason: "\(reason) for \(source.name) → \(versions[to].name)\(shared)")
        }
    }
}
