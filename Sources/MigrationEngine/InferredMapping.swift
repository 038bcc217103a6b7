import ObjectModel

/// What Core Data would infer between two model versions: which entity and property of the
/// destination comes from which of the source (renaming identifiers included), the changes, and
/// the changes that cannot be inferred. Computed from the two models alone, never the store.
public struct InferredMapping: Sendable {
    /// One inferred change, said for people.
    public struct Change: Hashable, Sendable, CustomStringConvertible {
        /// The entity (destination name, or source name when removed).
        public var entity: String
        /// What changed.
        public var description: String
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
    /// Source entities with no destination (their instances are dropped).
    public var removedEntities: [String]
    /// The two models.
    public var sourceModel: ManagedObjectModel, destinationModel: ManagedObjectModel

    /// Whether a lightweight migration can do this step.
    public var isInferable: Bool { blockers.isEmpty }

    /// The error for a step that needs a mapping model, naming every blocking change.
    public var notInferableError: MigrationError {
        MigrationError(.wrongModel, "\(sourceVersion) → \(destinationVersion) cannot be inferred: " + blockers.map(\.description).joined(separator: "; "),
                       fix: "write a mapping model for \(sourceVersion) → \(destinationVersion) (Name.mapping.yaml or an Xcode .xcmappingmodel)")
    }
}

extension InferredMapping {
    /// Infers the mapping from `source` to `destination` by Core Data's rules.
    public init(from source: ModelBundle.Version, to destination: ModelBundle.Version) {
        let old = source.model, new = destination.model
        var entitySources: [String: String] = [:]
        var claimed: Set<String> = []
        func claim(_ target: EntityDescription, where match: (EntityDescription) -> Bool) {
            guard entitySources[target.name] == nil, let found = old.entities.first(where: { !claimed.contains($0.name) && match($0) }) else { return }
            entitySources[target.name] = found.name
            claimed.insert(found.name)
        }
        // Renaming identifiers first (a chain of renames shares one identifier), then equal names.
        for entity in new.entities {
            if let identifier = entity.renamingIdentifier {
                claim(entity) { $0.name == identifier || $0.renamingIdentifier == identifier }
            }
        }
        for entity in new.entities { claim(entity) { $0.name == entity.name } }

        var changes: [Change] = [], blockers: [Change] = []
        var propertySources: [String: [String: String]] = [:]
        for entity in new.entities {
            guard let sourceName = entitySources[entity.name], let sourceEntity = old.entity(named: sourceName) else {
                changes.append(Change(entity: entity.name, description: "new entity \(entity.name)"))
                continue
            }
            if sourceName != entity.name { changes.append(Change(entity: entity.name, description: "entity \(sourceName) renamed to \(entity.name)")) }
            if sourceEntity.parentName.flatMap({ name in entitySources.first { $0.value == name }?.key }) != entity.parentName {
                changes.append(Change(entity: entity.name, description: "parent entity \(sourceEntity.parentName ?? "none") → \(entity.parentName ?? "none")"))
            }
            let (sources, propertyChanges, propertyBlockers) = Self.properties(of: entity, in: new, from: sourceEntity, in: old, entitySources: entitySources)
            propertySources[entity.name] = sources
            changes += propertyChanges
            blockers += propertyBlockers
        }
        let removed = old.entities.map(\.name).filter { !claimed.contains($0) }
        changes += removed.map { Change(entity: $0, description: "entity \($0) removed") }
        // Core Data cannot merge inheritance hierarchies: each new hierarchy takes rows from one old one.
        for root in new.entities where root.parentName == nil {
            let members = [root] + Self.descendants(of: root, in: new)
            let origins = Set(members.compactMap { entitySources[$0.name] }.compactMap { old.entity(named: $0) }.map { old.rootEntity(of: $0).name })
            if origins.count > 1 {
                blockers.append(Change(entity: root.name, description: "hierarchy \(root.name) merges the old hierarchies \(origins.sorted().joined(separator: " and "))"))
            }
        }
        self.init(sourceVersion: source.name, destinationVersion: destination.name, entitySources: entitySources,
                  propertySources: propertySources, changes: changes, blockers: blockers, removedEntities: removed,
                  sourceModel: old, destinationModel: new)
    }

    static func descendants(of entity: EntityDescription, in model: ManagedObjectModel) -> [EntityDescription] {
        model.subentities(of: entity).flatMap { [$0] + descendants(of: $0, in: model) }
    }

    private static func properties(of entity: EntityDescription, in new: ManagedObjectModel, from source: EntityDescription,
                                   in old: ManagedObjectModel, entitySources: [String: String]) -> ([String: String], [Change], [Change]) {
        var sources: [String: String] = [:], changes: [Change] = [], blockers: [Change] = []
        let oldAttributes = old.allAttributes(of: source).filter { !$0.isTransient }
        let oldRelationships = old.allRelationships(of: source).filter { !$0.isTransient }
        let oldNames = oldAttributes.map(\.property) + oldRelationships.map(\.property)
        var claimed: Set<String> = []
        func match(_ property: PropertyDescription) -> String? {
            let candidates = oldNames.filter { !claimed.contains($0.name) }
            let found = property.renamingIdentifier.flatMap { id in candidates.first { $0.name == id || $0.renamingIdentifier == id } }
                ?? candidates.first { $0.name == property.name }
            if let found { claimed.insert(found.name) }
            return found?.name
        }
        func note(_ text: String) { changes.append(Change(entity: entity.name, description: "\(entity.name).\(text)")) }
        func block(_ text: String) { blockers.append(Change(entity: entity.name, description: "\(entity.name).\(text)")) }
        for attribute in new.allAttributes(of: entity) where !attribute.isTransient {
            guard let from = match(attribute.property) else {
                note("\(attribute.name) added")
                if !attribute.isOptional && attribute.defaultValueString == nil && !attribute.isDerived {
                    block("\(attribute.name) is new and required but has no default value")
                }
                continue
            }
            sources[attribute.name] = from
            if from != attribute.name { note("\(attribute.name) renamed from \(from)") }
            guard let old = oldAttributes.first(where: { $0.name == from }) else {
                block("\(attribute.name) was a relationship and is now an attribute")
                continue
            }
            if old.attributeType != attribute.attributeType {
                block("\(attribute.name) changes type from \(old.attributeType.displayName) to \(attribute.attributeType.displayName)")
            }
            if old.isOptional && !attribute.isOptional {
                if attribute.defaultValueString == nil { block("\(attribute.name) becomes required and has no default value") }
                else { note("\(attribute.name) becomes required; empty values get the default \(attribute.defaultValueString!)") }
            } else if !old.isOptional && attribute.isOptional {
                note("\(attribute.name) becomes optional")
            }
        }
        for relationship in new.allRelationships(of: entity) where !relationship.isTransient {
            guard let from = match(relationship.property) else {
                note("\(relationship.name) added")
                if !relationship.isOptional { block("\(relationship.name) is a new required relationship; existing objects have nothing to point to") }
                continue
            }
            sources[relationship.name] = from
            if from != relationship.name { note("\(relationship.name) renamed from \(from)") }
            guard let old = oldRelationships.first(where: { $0.name == from }) else {
                block("\(relationship.name) was an attribute and is now a relationship")
                continue
            }
            if entitySources[relationship.destinationEntityName] != old.destinationEntityName {
                block("\(relationship.name) now points to \(relationship.destinationEntityName) instead of \(old.destinationEntityName)")
            }
            if old.isToMany != relationship.isToMany { note("\(relationship.name) changes from \(old.isToMany ? "to-many" : "to-one") to \(relationship.isToMany ? "to-many" : "to-one")") }
            if old.isOrdered != relationship.isOrdered { note("\(relationship.name) becomes \(relationship.isOrdered ? "ordered" : "unordered")") }
            if old.isOptional && !relationship.isOptional { block("\(relationship.name) becomes required; existing objects may have nothing to point to") }
        }
        let removed = oldNames.map(\.name).filter { !claimed.contains($0) }
        for name in removed { note("\(name) removed") }
        return (sources, changes, blockers)
    }
}

extension MappingModel {
    /// The mapping Core Data would infer between two versions, as an ordinary mapping model (one
    /// copy/transform entity mapping per surviving entity); throws when the step needs a mapping
    /// model, naming every change that blocks inference.
    public static func inferred(from source: ModelBundle.Version, to destination: ModelBundle.Version) throws -> MappingModel {
        let inference = InferredMapping(from: source, to: destination)
        guard inference.isInferable else { throw inference.notInferableError }
        return inference.mappingModel()
    }
}

extension InferredMapping {
    /// The inferred mapping as a mapping model: `$source.<old name>` for every attribute, and
    /// every relationship through the entity mapping of its destination — what an inferred-copy
    /// step runs when the store cannot be changed in place.
    public func mappingModel() -> MappingModel {
        let names = Dictionary(uniqueKeysWithValues: entitySources.map { ($0.key, EntityMapping.conventionalName(source: $0.value, destination: $0.key)) })
        let mappings = destinationModel.entities.compactMap { entity -> EntityMapping? in
            guard let source = entitySources[entity.name] else { return nil }
            let properties = propertySources[entity.name] ?? [:]
            let relationships = Set(destinationModel.allRelationships(of: entity).map(\.name))
            var attributeMappings: [PropertyMapping] = [], relationshipMappings: [PropertyMapping] = []
            for (name, from) in properties.sorted(by: { $0.key < $1.key }) {
                if relationships.contains(name) {
                    let target = destinationModel.relationship(named: name, in: entity)?.destinationEntityName
                    relationshipMappings.append(PropertyMapping(name: name, expression: target.flatMap { names[$0] }.map {
                        .function(.variable("manager"), "destinationInstancesForEntityMappingNamed:sourceInstances:", [.constant(.string($0)), .sourceKey(from)])
                    }))
                } else {
                    attributeMappings.append(PropertyMapping(name: name, expression: .sourceKey(from)))
                }
            }
            return EntityMapping(name: names[entity.name], source: source, destination: entity.name,
                                 attributeMappings: attributeMappings, relationshipMappings: relationshipMappings)
        }
        return MappingModel(name: "\(sourceVersion) to \(destinationVersion) (inferred)", sourceVersion: sourceVersion,
                            destinationVersion: destinationVersion, entityMappings: mappings)
    }
}
