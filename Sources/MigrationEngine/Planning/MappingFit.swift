import ObjectModel

/// Which versions of a bundle each given mapping model maps, and which mapping models a plan
/// leaves unused, and why.
///
/// Core Data picks a mapping model for a pair of models by the entity hashes the compiled model
/// (`.cdm`) stores, never by a file name; Chrysalis does the same for `.cdm` files, so a whole
/// app bundle or folder of them can be given. A mapping model that fits no step is listed as
/// unused with the reason, not refused: a folder usually holds older mappings too.
struct MappingFit {
    /// The mapping models whose versions are named (found by their hashes for a `.cdm`).
    let named: [MappingModel]
    /// The mapping models that fit no version of the bundle.
    let unfit: [MappingModel]
    private let bundle: ModelBundle

    init(_ mappings: [MappingModel], bundle: ModelBundle) {
        var named: [MappingModel] = [], unfit: [MappingModel] = []
        for mapping in mappings {
            if let found = mapping.resolvingVersions(in: bundle) { named.append(found) } else { unfit.append(mapping) }
        }
        self.named = named
        self.unfit = unfit
        self.bundle = bundle
    }

    /// Refuses mapping models that map the same thing twice: an entity mapping of one name, for
    /// the same entities and the same source objects (its filter), in two mapping models of one
    /// pair of versions. Several mapping models for a pair run as passes into one store, so the
    /// same file named twice, a link to it, or a copy beside it would create every instance twice
    /// (100 books became 200, exit 0). Passes that split one entity's objects between them by
    /// their filters are Core Data's way with a large store (Apple's guide, "Multiple Passes";
    /// billmoss's `Model4ToModel5-1`, `-2`, `-3`: `name MATCHES "[a-h].*"`, …).
    static func refuseDuplicates(_ mappings: [MappingModel]) throws {
        var seen: [String: MappingModel] = [:]
        for mapping in mappings {
            for entityMapping in mapping.entityMappings {
                let key = [
                    mapping.sourceVersion, mapping.destinationVersion, entityMapping.name,
                    entityMapping.sourceEntity ?? "", entityMapping.destinationEntity ?? "",
                    entityMapping.filter?.description ?? "",
                ].joined(separator: "\u{1F}")
                if let first = seen[key] {
                    let place = { (model: MappingModel) in "\(model.name)\(model.file.map { " (\($0))" } ?? "")" }
                    throw MigrationError(
                        .wrongModel,
                        """
                        \(place(first)) and \(place(mapping)) both map \(entityMapping.name) for \
                        \(mapping.sourceVersion) → \(mapping.destinationVersion): run as two passes, they would \
                        migrate every instance twice
                        """,
                        fix:
                            """
                            give each mapping model once (the same file named twice, a link to it, or a copy of it \
                            beside it)
                            """
                    )
                }
                seen[key] = mapping
            }
        }
    }

    /// The names of the mapping models no leg uses, and a note for each saying why. A mapping to a
    /// version the store has already reached is not listed: it is done, and the same command run
    /// again after an interrupted plan must carry on, not complain.
    func unused(by legs: [MigrationStrategy.Leg], from start: ModelBundle.Version, to end: ModelBundle.Version) -> (
        names: [String], notes: [String]
    ) {
        let used = Set(legs.flatMap { $0.mappings.map(\.name) })
        let index = { (name: String) in bundle.versions.firstIndex { $0.name == name } }
        let startIndex = index(start.name) ?? 0, endIndex = index(end.name) ?? 0
        var names: [String] = [], notes: [String] = []
        for mapping in unfit {
            names.append(mapping.name)
            notes.append(
                "\(mapping.name) fits no version of \(bundle.name)"
                    + (mapping.sourceEntityHashes == nil
                        ? " (it maps \(mapping.sourceVersion) → \(mapping.destinationVersion))"
                        : " (its entity hashes match none)"))
        }
        for mapping in named where !used.contains(mapping.name) {
            guard let to = index(mapping.destinationVersion), to > startIndex else { continue }
            names.append(mapping.name)
            let pair = "\(mapping.sourceVersion) → \(mapping.destinationVersion)"
            if to > endIndex {
                notes.append("\(mapping.name) maps \(pair), beyond the target \(end.name): not used")
            } else {
                notes.append("\(mapping.name) maps \(pair), which the route from \(start.name) does not take: not used")
            }
        }
        return (names, notes)
    }
}
