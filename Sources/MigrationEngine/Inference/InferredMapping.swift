import ObjectModel

/// What Core Data would infer between two model versions: which entity and property of the
/// destination comes from which of the source, the changes, the changes that cannot be inferred,
/// and the values existing rows must have for the step to succeed. Computed from the two models
/// alone, never the store; the rules, each with its evidence, are in `InferenceRules.swift`.
public struct InferredMapping: Sendable {
    /// One inferred change: what kind, where, and said for people.
    public struct Change: Hashable, Sendable, CustomStringConvertible {
        /// What kind of change, for scripts (`plan --json`).
        public enum Kind: String, Hashable, Sendable, Encodable {
            case newEntity, entityRenamed, entityRemoved, parentChanged
            case added, removed, renamed, retyped, madeRequired, madeOptional, madeToMany, orderChanged
            /// A relationship keeps none of its links (its destination changed, or its storage).
            case linksDropped
            /// What Core Data cannot infer (a blocker).
            case notInferable
        }

        /// What kind of change.
        public var kind: Kind
        /// The entity (destination name, or source name when removed).
        public var entity: String
        /// The property, for a change of one.
        public var property: String?
        /// What changed.
        public var description: String

        /// A change of `kind` to `entity` (and `property`).
        ///
        /// - Parameters:
        ///   - kind: What kind of change; a blocker (`.notInferable`) unless given.
        ///   - entity: The entity: the destination's name, or the source's when it is removed.
        ///   - property: The property, for a change of one.
        ///   - description: What changed, said for people.
        public init(kind: Kind = .notInferable, entity: String, property: String? = nil, description: String) {
            (self.kind, self.entity, self.property, self.description) = (kind, entity, property, description)
        }

        /// Whether the change loses data the source holds.
        public var dropsData: Bool { [.entityRemoved, .removed, .linksDropped].contains(kind) }
    }

    /// The source model version's name.
    public var sourceVersion: String
    /// The destination model version's name.
    public var destinationVersion: String
    /// Destination entity → the source entity its instances come from (absent: a new entity).
    public var entitySources: [String: String]
    /// Destination entity → destination property → the source property it comes from.
    public var propertySources: [String: [String: String]]
    /// Everything that changes.
    public var changes: [Change]
    /// Changes Core Data cannot infer; any one of them means a mapping model is needed.
    public var blockers: [Change]
    /// Values the destination requires that existing rows may lack: Core Data infers these, and
    /// the migration fails only for a store that has such rows (see ``InferenceRequirement``).
    public var requirements: [InferenceRequirement]
    /// Source entities with no destination (their instances are dropped).
    public var removedEntities: [String]
    /// The two models.
    public var sourceModel: ManagedObjectModel, destinationModel: ManagedObjectModel

    /// Whether a lightweight migration can do this step (for a store whose rows meet the
    /// ``requirements``).
    public var isInferable: Bool { blockers.isEmpty }

    /// The error for a step that needs a mapping model, naming every blocking change.
    public var notInferableError: MigrationError {
        var error = MigrationError(
            .wrongModel,
            "\(sourceVersion) → \(destinationVersion) cannot be inferred: "
                + blockers.map(\.description).joined(separator: "; "),
            fix:
                """
                write a mapping model for \(sourceVersion) → \(destinationVersion) (Name.mapping.yaml or an Xcode \
                .xcmappingmodel)
                """
        )
        error.step = "\(sourceVersion) → \(destinationVersion)"
        return error
    }
}

/// Checks stricter than Core Data's inference, each asked for by name; none by default.
public struct InferenceChecks: OptionSet, Sendable, Hashable {
    /// The checks, one bit each.
    public let rawValue: Int
    /// The checks whose bits `rawValue` sets.
    ///
    /// - Parameter rawValue: The checks' bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Refuse a relationship whose destination entity changes, where Core Data infers it and drops
    /// or checks the links (`--strict-destinations`).
    public static let destinationChanges = InferenceChecks(rawValue: 1)
    /// Refuse a store at no version of the bundle whose plan would drop most of its entities:
    /// Core Data migrates it from its own model all the same, but in an app that cannot happen
    /// by mistake, and on a command line it is one wrong `--model` (the CLI's default; turned
    /// off by `--accept-foreign-model`).
    public static let foreignModel = InferenceChecks(rawValue: 2)
}

extension InferredMapping {
    /// Infers the mapping from `source` to `destination` by Core Data's rules, and refuses what
    /// `checks` asks to refuse beyond them.
    ///
    /// - Parameters:
    ///   - source: The version the step starts at.
    ///   - destination: The version it ends at.
    ///   - checks: The checks stricter than Core Data's to apply; none unless given.
    public init(from source: ModelBundle.Version, to destination: ModelBundle.Version, checks: InferenceChecks = []) {
        let old = source.model, new = destination.model
        var changes: [Change] = [], requirements: [InferenceRequirement] = []
        var blockers = Self.sharedEntityIdentifiers([(old, source.name), (new, destination.name)])
        let entitySources = Self.entitySources(of: new, in: old)
        let claimed = Set(entitySources.values)
        var propertySources: [String: [String: String]] = [:]
        for entity in new.entities {
            guard let sourceName = entitySources[entity.name], let sourceEntity = old.entity(named: sourceName) else {
                changes.append(Change(kind: .newEntity, entity: entity.name, description: "new entity \(entity.name)"))
                continue
            }
            changes += Self.entityChanges(entity, from: sourceEntity, entitySources: entitySources)
            let found = InferenceRules.properties(
                of: entity, in: new, from: sourceEntity, in: old, entitySources: entitySources, checks: checks)
            propertySources[entity.name] = found.sources
            changes += found.changes
            blockers += found.blockers
            requirements += found.requirements
            requirements += InferenceRequirement.addedUniqueness(of: entity, from: sourceEntity, sources: found.sources)
        }
        let removed = old.entities.map(\.name).filter { !claimed.contains($0) }
        changes += removed.map { Change(kind: .entityRemoved, entity: $0, description: "entity \($0) removed") }
        blockers += InferenceRules.mergedHierarchies(in: new, from: old, entitySources: entitySources)
        self.init(
            sourceVersion: source.name, destinationVersion: destination.name, entitySources: entitySources,
            propertySources: propertySources, changes: changes, blockers: blockers, requirements: requirements,
            removedEntities: removed, sourceModel: old, destinationModel: new)
    }

    /// Rule R4: renaming identifiers must be unique among a model's entities.
    private static func sharedEntityIdentifiers(_ models: [(ManagedObjectModel, String)]) -> [Change] {
        models.flatMap { model, side in
            InferenceRules.duplicates(model.entities.map(\.canonicalName)).map { identifier in
                Change(
                    entity: identifier,
                    description: "two entities of \(side) share the renaming identifier \(identifier)")
            }
        }
    }

    /// Rule R2: entities pair by renaming identifier (an unset one is the name), nothing else.
    /// Each destination entity's source entity, by name.
    private static func entitySources(of new: ManagedObjectModel, in old: ManagedObjectModel) -> [String: String] {
        let sourcesByIdentifier = Dictionary(
            old.entities.map { ($0.canonicalName, $0) }, uniquingKeysWith: { first, _ in first })
        var entitySources: [String: String] = [:]
        for entity in new.entities {
            if let found = sourcesByIdentifier[entity.canonicalName] { entitySources[entity.name] = found.name }
        }
        return entitySources
    }

    /// `entity` renamed from its source, or moved under another parent.
    private static func entityChanges(
        _ entity: EntityDescription, from sourceEntity: EntityDescription, entitySources: [String: String]
    ) -> [Change] {
        var changes: [Change] = []
        if sourceEntity.name != entity.name {
            changes.append(
                Change(
                    kind: .entityRenamed, entity: entity.name,
                    description: "entity \(sourceEntity.name) renamed to \(entity.name)"))
        }
        if sourceEntity.parentName.flatMap({ name in entitySources.first { $0.value == name }?.key })
            != entity.parentName
        {
            changes.append(
                Change(
                    kind: .parentChanged, entity: entity.name,
                    description: "parent entity \(sourceEntity.parentName ?? "none") → \(entity.parentName ?? "none")"))
        }
        return changes
    }

    static func descendants(of entity: EntityDescription, in model: ManagedObjectModel) -> [EntityDescription] {
        model.subentities(of: entity).flatMap { [$0] + descendants(of: $0, in: model) }
    }
}
