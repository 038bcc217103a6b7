/// Something in a model that Core Data refuses, or loads but a person should know of, with where
/// it is and how to fix it.
public struct ModelProblem: Hashable, Sendable, CustomStringConvertible {
    /// What Core Data does with a model that has the problem. Only ``refused`` is Core Data's
    /// refusal; everything Xcode compiles and Core Data loads is read, as Core Data reads it.
    public enum Verdict: String, Hashable, Sendable {
        /// Core Data (or Xcode's model compiler, which an app's build runs) refuses the model:
        /// no app ships it, so no store is at it.
        case refused
        /// Core Data loads the model as written; Chrysalis does what Core Data does and says so.
        case warning
        /// Core Data loads the model, but Chrysalis cannot yet make or migrate a store at it.
        case unsupported
    }

    /// The entity at fault.
    public var entity: String
    /// The property at fault, or `nil` when the entity itself is.
    public var property: String?
    /// What is wrong.
    public var message: String
    /// What to change.
    public var fix: String
    /// Whether Core Data refuses it.
    public var verdict: Verdict

    /// A problem with `entity` (and `property`).
    ///
    /// - Parameters:
    ///   - entity: The entity at fault.
    ///   - property: The property at fault, or `nil` when the entity itself is.
    ///   - message: What is wrong.
    ///   - fix: What to change.
    ///   - verdict: What Core Data does with such a model; refused unless given.
    public init(entity: String, property: String? = nil, message: String, fix: String, verdict: Verdict = .refused) {
        self.entity = entity
        self.property = property
        self.message = message
        self.fix = fix
        self.verdict = verdict
    }

    /// `Entity.property: message. Fix: fix`.
    public var description: String {
        "\(entity)\(property.map { ".\($0)" } ?? ""): \(message). Fix: \(fix)"
    }

    /// Whether a version with this problem can have a store Chrysalis makes or migrates.
    public var stopsStores: Bool { verdict != .warning }
}

extension ManagedObjectModel {
    /// Every problem of this model, in file order, each with Core Data's verdict; empty when it is
    /// sound.
    ///
    /// Refused, because Core Data or Xcode's model compiler cannot build such a model: duplicate
    /// entity names (`NSManagedObjectModel.entitiesByName` holds one entity a name), missing or
    /// cyclic parents, two properties of one name or a property named like an inherited one
    /// (`NSEntityDescription.propertiesByName`), stored attributes without a type (Apple's
    /// `NSAttributeDescription`: the undefined type is "only for transient attributes"),
    /// relationships to, and inverses in, entities or relationships that do not exist,
    /// constraints, indexes and configurations naming what does not exist. None of these occurs in
    /// a model an app shipped among the fixtures (1,010 versions), and one model that was never
    /// built (an untyped stored attribute in a test fixture of a project-file library) has one.
    ///
    /// Warned, because shipped apps have them and Core Data loads them: inverses that do not point
    /// back (WordPress 101–109, Artsy Folio), fetch index elements naming a to-many relationship
    /// (WordPress 98–109). Unsupported: composite attributes.
    ///
    /// - Returns: The problems, in file order; empty for a sound model.
    public func problems() -> [ModelProblem] {
        // Checked first and alone: every later check (and every version hash) walks each
        // entity's parents, which on a chain hundreds deep took minutes.
        if let deep = entityInheritingTooDeeply() {
            return [
                .init(
                    entity: deep.name,
                    message: "inherits through more than \(Self.maximumInheritanceDepth) parent entities",
                    fix: "flatten the hierarchy: no real model is nested this deeply")
            ]
        }
        var found: [ModelProblem] = []
        var seenEntities: Set<String> = []
        for entity in entities {
            if !seenEntities.insert(entity.name).inserted {
                found.append(
                    .init(
                        entity: entity.name, message: "the model has two entities named \"\(entity.name)\"",
                        fix: "rename one of them"))
            }
            found += hierarchyProblems(of: entity)
            found += propertyProblems(of: entity)
        }
        // SQLite's table names ignore case, and each root entity's table is `Z` and its name in
        // capitals: two such entities whose names differ only in case would share one table.
        var rootsByTable: [String: String] = [:]
        for entity in entities where entity.parentName == nil {
            let table = entity.name.uppercased()
            if let other = rootsByTable[table], other != entity.name {
                found.append(
                    .init(
                        entity: entity.name,
                        message:
                            "entities \"\(other)\" and \"\(entity.name)\" differ only in case, so their SQLite tables (Z\(table)) would be one",
                        fix: "rename one of them", verdict: .unsupported))
            } else {
                rootsByTable[table] = entity.name
            }
        }
        for configuration in configurations {
            for name in configuration.entityNames where entity(named: name) == nil {
                found.append(
                    .init(
                        entity: name,
                        message:
                            "configuration \"\(configuration.name)\" lists entity \"\(name)\", which does not exist",
                        fix: "remove it from the configuration or add the entity"))
            }
        }
        return found
    }

    /// The deepest entity hierarchy Chrysalis reads. Core Data documents no limit, but each walk
    /// over a hierarchy costs its depth per entity (a hostile 300-entity chain took minutes to
    /// hash), and real models nest a few levels at most.
    public static let maximumInheritanceDepth = 32

    /// The first entity with more than ``maximumInheritanceDepth`` ancestors, found with one
    /// dictionary of parents, so it is cheap on any model, cyclic or huge.
    ///
    /// - Returns: The entity, or `nil` when every hierarchy is shallow enough.
    public func entityInheritingTooDeeply() -> EntityDescription? {
        // The first entity of a name wins, as in `entity(named:)`.
        var parents: [String: String?] = [:]
        for entity in entities where parents[entity.name] == nil { parents[entity.name] = .some(entity.parentName) }
        for entity in entities {
            var seen: Set<String> = [entity.name]
            var next = entity.parentName
            while let name = next, let parent = parents[name], seen.insert(name).inserted {
                if seen.count > Self.maximumInheritanceDepth + 1 { return entity }
                next = parent
            }
        }
        return nil
    }

    /// The first entity whose parent is missing or whose parents form a cycle (one that is its
    /// own superentity among them): what a compiled or archived model is checked for, since
    /// every hash and layout walks the parents.
    ///
    /// - Returns: The problem, or `nil` when every parent exists and none is its own ancestor.
    public func firstHierarchyProblem() -> ModelProblem? {
        entities.lazy.flatMap { self.hierarchyProblems(of: $0) }.first
    }

    private func hierarchyProblems(of entity: EntityDescription) -> [ModelProblem] {
        guard let parentName = entity.parentName else { return [] }
        guard self.entity(named: parentName) != nil else {
            return [
                .init(
                    entity: entity.name, message: "parent entity \"\(parentName)\" does not exist",
                    fix: "add an entity named \"\(parentName)\" or change parentEntity (entities: \(entityNameList))")
            ]
        }
        let chain = ancestors(of: entity)
        // The walk stops where a name repeats: an entity that is its own parent has no chain.
        if let next = (chain.last ?? entity).parentName, self.entity(named: next) != nil {
            let cycle = ([entity] + chain).map(\.name) + [next]
            return [
                .init(
                    entity: entity.name, message: "parent entities form a cycle: \(cycle.joined(separator: " → "))",
                    fix: "make one entity of the cycle a root (no parentEntity)")
            ]
        }
        return []
    }

    private func propertyProblems(of entity: EntityDescription) -> [ModelProblem] {
        var found: [ModelProblem] = []
        let inherited = Set(ancestors(of: entity).flatMap(\.declaredPropertyNames))
        var seen: Set<String> = []
        for name in entity.declaredPropertyNames {
            if !seen.insert(name).inserted {
                found.append(
                    .init(
                        entity: entity.name, property: name, message: "two properties are named \"\(name)\"",
                        fix: "rename one of them"))
            } else if inherited.contains(name) {
                found.append(
                    .init(
                        entity: entity.name, property: name,
                        message: "\"\(name)\" is already inherited from a parent entity",
                        fix: "rename it or remove it from one of the two entities"))
            }
        }
        for attribute in entity.attributes where attribute.attributeType == .undefined && !attribute.isTransient {
            found.append(
                .init(
                    entity: entity.name, property: attribute.name,
                    message: "stored attribute \"\(attribute.name)\" has no attributeType",
                    fix: "give it one of: \(AttributeType.xcodeNames.joined(separator: ", ")), or make it transient"))
        }
        for relationship in entity.relationships {
            found += relationshipProblems(relationship, in: entity)
        }
        let names = Set(allAttributes(of: entity).map(\.name) + allRelationships(of: entity).map(\.name))
        let referenced =
            entity.uniquenessConstraints.flatMap { $0 } + entity.compoundIndexes.flatMap { $0 }
            + entity.fetchIndexes.flatMap { $0.elements.map(\.property) }
        for name in referenced where !names.contains(name) {
            found.append(
                .init(
                    entity: entity.name, property: name,
                    message: "a constraint or index names \"\(name)\", which \(entity.name) does not have",
                    fix: "remove it from the constraint or index, or add the property"))
        }
        found += fetchIndexWarnings(of: entity)
        for attribute in entity.attributes where attribute.attributeType == .composite && !attribute.isTransient {
            found.append(
                .init(
                    entity: entity.name, property: attribute.name,
                    message:
                        "composite attribute \"\(attribute.name)\": how Core Data stores and hashes composite attributes is not known to Chrysalis",
                    fix: "migrate stores at this version with Core Data on a device", verdict: .unsupported))
        }
        return found
    }

    private func relationshipProblems(_ relationship: RelationshipDescription, in entity: EntityDescription)
        -> [ModelProblem]
    {
        func problem(_ message: String, _ fix: String) -> [ModelProblem] {
            [.init(entity: entity.name, property: relationship.name, message: message, fix: fix)]
        }
        guard let destination = self.entity(named: relationship.destinationEntityName) else {
            return problem(
                "destination entity \"\(relationship.destinationEntityName)\" does not exist",
                "set destinationEntity to one of: \(entityNameList)")
        }
        guard let inverseName = relationship.inverseName else { return [] }
        let holderName = relationship.inverseEntityName ?? destination.name
        guard let holder = self.entity(named: holderName) else {
            return problem(
                "inverse entity \"\(holderName)\" does not exist", "set inverseEntity to \"\(destination.name)\"")
        }
        guard let inverse = self.relationship(named: inverseName, in: holder) else {
            return problem(
                "inverse \"\(inverseName)\" does not exist in \(holder.name)",
                "add relationship \"\(inverseName)\" to \(holder.name) or pick an existing inverse")
        }
        let acceptable = Set([entity.name] + ancestors(of: entity).map(\.name))
        guard acceptable.contains(inverse.destinationEntityName), inverse.inverseName == relationship.name else {
            // Xcode warns and compiles it, and Core Data loads it: WordPress shipped 101–109 with
            // Comment.sites → ReaderSiteTopic.cards, whose inverse is ReaderCard.sites, and its
            // tests save objects in stores at 103 and 104. The version hash names the inverse as
            // written; the store keeps the pair that does point back (StoreLayout).
            let target = "\(inverse.destinationEntityName).\(inverse.inverseName ?? "(no inverse)")"
            return [
                .init(
                    entity: entity.name, property: relationship.name,
                    message:
                        "inverse \(holder.name).\(inverseName) does not point back (it points to \(target)); Core Data loads the model, "
                        + "hashes the inverse as written, and keeps \(holder.name).\(inverseName) paired with \(target)",
                    fix:
                        "make \(holder.name).\(inverseName) have destination \(entity.name) and inverse \"\(relationship.name)\", "
                        + "or give \(entity.name).\(relationship.name) an inverse of its own",
                    verdict: .warning)
            ]
        }
        return []
    }

    /// A fetch index element naming a to-many relationship indexes nothing: a to-many has no
    /// column. Xcode writes them (WordPress 98–109 hold 108) and Core Data loads the model; the
    /// store gets the index on the element's other columns, or none when none is left.
    private func fetchIndexWarnings(of entity: EntityDescription) -> [ModelProblem] {
        let toMany = Set(allRelationships(of: entity).filter(\.isToMany).map(\.name))
        return entity.fetchIndexes.flatMap { index in
            index.elements.filter { toMany.contains($0.property) }.map { element in
                ModelProblem(
                    entity: entity.name, property: element.property,
                    message:
                        "fetch index \"\(index.name)\" names to-many relationship \"\(element.property)\", which has no column: "
                        + "the store's index leaves it out\(index.elements.count == 1 ? " (so there is no index)" : "")",
                    fix: "remove \"\(element.property)\" from fetch index \"\(index.name)\"", verdict: .warning)
            }
        }
    }

    private var entityNameList: String { entities.map(\.name).joined(separator: ", ") }
}
