import ObjectModel

/// Core Data's rules for inferring a mapping (lightweight migration), exactly as wide as Core
/// Data's: each rule names its evidence. The table in docs/Rules.md lists the same rules.
///
/// Sources, cited by tag below:
/// - DOC: Apple, "Core Data Model Versioning and Data Migration Programming Guide", Lightweight
///   Migration ("Core Data must be able to infer the mapping"); the API reference of
///   `NSEntityDescription.renamingIdentifier` / `NSPropertyDescription.renamingIdentifier` ("If
///   unset, the identifier will return the … name"), `inferredMappingModel(forSourceModel:destinationModel:)`.
/// - WIRE: a shipped app (Wire iOS, `../shared/fixtures/coredata/wire-ios-data-model`) whose 90
///   model versions Core Data migrated with inference only, straight to the current version,
///   release after release; its own migration tests assert the row counts.
/// - CD: Core Data's mapping-model builder and in-place SQLite migrator (iOS 18.2), read for
///   behaviour: the error texts quoted below are its own (errors 134190 and 134110).
/// - FORUM: Stack Overflow and Apple developer forums threads named beside the rule.
enum InferenceRules {
    /// The result of pairing one destination entity's properties with its source entity's.
    struct Properties {
        var sources: [String: String] = [:]
        var changes: [InferredMapping.Change] = []
        var blockers: [InferredMapping.Change] = []
        var requirements: [InferenceRequirement] = []
    }

    /// The numeric types and Boolean: NSNumber-backed, and the only types Core Data converts
    /// between. T1 (CD: "Source and destination attribute types are incompatible" for any other
    /// pair; WIRE 2.53 → 2.54 `isSilenced` Boolean → `mutedStatus` Integer 32; WWDC 2010 session
    /// 118, "numerical type conversion").
    static let numericTypes: Set<AttributeType> = [
        .integer16, .integer32, .integer64, .decimal, .double, .float, .boolean,
    ]

    /// The identifiers that occur more than once.
    static func duplicates(_ identifiers: [String]) -> [String] {
        var seen: Set<String> = [], repeated: [String] = []
        for identifier in identifiers where !seen.insert(identifier).inserted && !repeated.contains(identifier) {
            repeated.append(identifier)
        }
        return repeated
    }

    /// Pairs `entity`'s stored properties (inherited ones included) with `source`'s and applies
    /// the attribute and relationship rules to each pair and to each new property.
    static func properties(
        of entity: EntityDescription, in new: ManagedObjectModel, from source: EntityDescription,
        in old: ManagedObjectModel, entitySources: [String: String], checks: InferenceChecks
    ) -> Properties {
        var pairing = PropertyPairing(
            entity: entity, new: new, source: source, old: old, entitySources: entitySources, checks: checks)
        pairing.refuseSharedIdentifiers()
        for attribute in new.allAttributes(of: entity) where !attribute.isTransient { pairing.pair(attribute) }
        for relationship in new.allRelationships(of: entity) where !relationship.isTransient {
            pairing.pair(relationship)
        }
        pairing.noteRemoved()
        return pairing.result
    }

    /// One destination entity's properties being paired with its source entity's, rule by rule.
    private struct PropertyPairing {
        let entity: EntityDescription, new: ManagedObjectModel, old: ManagedObjectModel
        let source: EntityDescription
        let entitySources: [String: String]
        let checks: InferenceChecks
        // A4: transient properties are neither stored nor matched (CD; fetched properties too).
        let oldAttributes: [AttributeDescription], oldRelationships: [RelationshipDescription]
        var oldProperties: [PropertyDescription] { oldAttributes.map(\.property) + oldRelationships.map(\.property) }
        /// Source property names by renaming identifier.
        let byIdentifier: [String: String]
        /// Source properties already paired.
        var claimed: Set<String> = []
        var result = Properties()

        init(
            entity: EntityDescription, new: ManagedObjectModel, source: EntityDescription, old: ManagedObjectModel,
            entitySources: [String: String], checks: InferenceChecks
        ) {
            (self.entity, self.new, self.old, self.source, self.entitySources, self.checks) = (
                entity, new, old, source, entitySources, checks
            )
            oldAttributes = old.allAttributes(of: source).filter { !$0.isTransient }
            oldRelationships = old.allRelationships(of: source).filter { !$0.isTransient }
            // R2/R3: properties pair by renaming identifier only; an unset one is the name (DOC). So
            // a chain of renames works when every version keeps the original name as its identifier
            // ("canonical name", DOC), and v1 → v3 pairs exactly as v2 → v3 does.
            byIdentifier = Dictionary(
                (oldAttributes.map(\.property) + oldRelationships.map(\.property)).map { ($0.canonicalName, $0.name) },
                uniquingKeysWith: { first, _ in first })
        }

        mutating func note(_ kind: InferredMapping.Change.Kind, _ property: String, _ text: String) {
            result.changes.append(
                .init(kind: kind, entity: entity.name, property: property, description: "\(entity.name).\(text)"))
        }
        mutating func block(_ text: String) {
            result.blockers.append(.init(entity: entity.name, description: "\(entity.name).\(text)"))
        }
        mutating func require(
            _ property: String, _ kind: InferenceRequirement.Kind, _ what: String, relationship: Bool = false
        ) {
            var requirement = InferenceRequirement(
                entity: entity.name, property: property, kind: kind, description: "\(entity.name).\(what)")
            requirement.isRelationship = relationship
            result.requirements.append(requirement)
        }

        /// R4: a source entity's properties need unique renaming identifiers (CD: "Each property
        /// must have a unique renaming identifier").
        mutating func refuseSharedIdentifiers() {
            for identifier in duplicates(oldProperties.map(\.canonicalName)) {
                result.blockers.append(
                    .init(
                        entity: entity.name,
                        description: "\(source.name): two properties share the renaming identifier \(identifier)"))
            }
        }

        /// The source property `property` pairs with, claimed, if any.
        mutating func match(_ property: PropertyDescription, isAttribute: Bool) -> String? {
            guard let found = byIdentifier[property.canonicalName], !claimed.contains(found) else { return nil }
            // R5: an attribute never pairs with a relationship; the pair is dropped and the
            // destination property counts as new (CD: "Properties cannot be mapped to other
            // property types").
            guard oldAttributes.contains(where: { $0.name == found }) == isAttribute else { return nil }
            claimed.insert(found)
            return found
        }

        /// An attribute: new, or paired with its source and checked by the attribute rules.
        mutating func pair(_ attribute: AttributeDescription) {
            guard let from = match(attribute.property, isAttribute: true),
                let was = oldAttributes.first(where: { $0.name == from })
            else {
                note(.added, attribute.name, "\(attribute.name) added")
                // A1/A2/A3: a new required attribute without a default is inferred; the step
                // fails for a store that has rows of the entity (CD 134110, "Validation error
                // missing attribute values on mandatory destination attribute"). A derived
                // attribute is computed by the store.
                if !attribute.isOptional && attribute.defaultValueString == nil && !attribute.isDerived {
                    require(attribute.name, .newValue, "\(attribute.name) is new and required but has no default value")
                }
                return
            }
            result.sources[attribute.name] = from
            if from != attribute.name { note(.renamed, attribute.name, "\(attribute.name) renamed from \(from)") }
            if let problem = typeChange(from: was, to: attribute) {
                block(problem)
            } else if was.attributeType != attribute.attributeType {
                note(
                    .retyped, attribute.name,
                    "\(attribute.name) changes type from \(was.attributeType.displayName) to \(attribute.attributeType.displayName); values carry over"
                )
            }
            // T5: external storage may be turned on (values gain Core Data's in-row tag), not off
            // (CD: "Unable to use inferred mapping to move external reference into store.").
            if was.allowsExternalBinaryDataStorage && !attribute.allowsExternalBinaryDataStorage {
                block(
                    "\(attribute.name) stops allowing external storage; Core Data cannot infer moving external values into the store"
                )
            }
            // A7/A8/A9: optional → required takes the default where a value is missing; without a
            // default the step fails for a store with a missing value (CD 134110).
            if was.isOptional && !attribute.isOptional {
                if let fill = attribute.defaultValueString {
                    note(
                        .madeRequired, attribute.name,
                        "\(attribute.name) becomes required; empty values get the default \(fill)")
                } else {
                    require(
                        attribute.name, .existingValue, "\(attribute.name) becomes required and has no default value")
                }
            } else if !was.isOptional && attribute.isOptional {
                note(.madeOptional, attribute.name, "\(attribute.name) becomes optional")
            }
        }

        /// A relationship: new, or paired with its source and checked by the relationship rules.
        mutating func pair(_ relationship: RelationshipDescription) {
            // P2/P3: a to-many that is not optional but has no minimum count asks nothing of
            // existing rows (WIRE 1.27 `UserClient.ignoredClients`, 2.78
            // `Conversation.participantRoles`); a required to-one or a to-many with a minimum does.
            let mandatory = !relationship.isOptional && (!relationship.isToMany || relationship.minCount > 0)
            guard let from = match(relationship.property, isAttribute: false),
                let was = oldRelationships.first(where: { $0.name == from })
            else {
                note(.added, relationship.name, "\(relationship.name) added")
                if mandatory {
                    require(
                        relationship.name, .newValue,
                        "\(relationship.name) is a new required relationship; existing objects have nothing to point to",
                        relationship: true)
                }
                return
            }
            guard keepsLinks(relationship, was: was, mandatory: mandatory), !becomesInverseKey(relationship, was: was)
            else { return }
            result.sources[relationship.name] = from
            if from != relationship.name {
                note(.renamed, relationship.name, "\(relationship.name) renamed from \(from)")
            }
            // P5/P6: to-one → to-many is inferred, to-many → to-one is not (CD: "Can not map from a
            // to-many to a to-one relationship"; DOC's "and vice versa" is about ordering).
            if was.isToMany && !relationship.isToMany {
                block(
                    "\(relationship.name) changes from to-many to to-one; Core Data cannot infer which of several objects to keep"
                )
            } else if !was.isToMany && relationship.isToMany {
                note(.madeToMany, relationship.name, "\(relationship.name) changes from to-one to to-many")
            }
            // P7: ordered ↔ unordered (DOC; WIRE 2.60 `allMessages`).
            if was.isOrdered != relationship.isOrdered {
                note(
                    .orderChanged, relationship.name,
                    "\(relationship.name) becomes \(relationship.isOrdered ? "ordered" : "unordered")")
            }
            // P4: becoming mandatory is checked against the rows (CD 134110).
            let wasMandatory = !was.isOptional && (!was.isToMany || was.minCount > 0)
            if mandatory && !wasMandatory {
                require(
                    relationship.name, .existingValue,
                    "\(relationship.name) becomes required; existing objects may have nothing to point to",
                    relationship: true)
            }
        }

        /// P10: a relationship whose destination entity changes. Core Data's inferred relationship
        /// mapping is `destinationInstancesForSourceRelationshipNamed:` on the source's links: the
        /// destination instances the linked objects became (DOC; CD).
        /// - The old destination's instances become the new destination's: the links are kept.
        /// - They become nothing (the old destination entity is removed): the relationship starts
        ///   empty, its links dropped and named (WordPress 83 renames `RevisionDiff*Value` to
        ///   `Diff*Value` without renaming identifiers and ships no mapping model; the app's users'
        ///   stores went through Core Data's inference).
        /// - They become instances of another entity: Core Data cannot infer the mapping, whatever
        ///   the store holds. WordPress's own test opens an *empty* store at WordPress 19 with model
        ///   21 and Core Data's automatic migration, and Core Data refuses it (`Comment.post` now
        ///   points to `BasePost` instead of `AbstractPost`, whose objects stay `AbstractPost`s):
        ///   the rule is on the models, not the rows. A removed destination (above) is the case
        ///   WordPress 82 → 83 takes with no mapping model.
        /// ``InferenceChecks/destinationChanges`` refuses the first two as well, stricter than Core Data.
        /// Returns whether the links are kept.
        mutating func keepsLinks(_ relationship: RelationshipDescription, was: RelationshipDescription, mandatory: Bool)
            -> Bool
        {
            let target = relationship.destinationEntityName
            guard entitySources[target] != was.destinationEntityName else { return true }
            let becomes = entitySources.first { $0.value == was.destinationEntityName }?.key
            if checks.contains(.destinationChanges) {
                block(
                    becomes == nil
                        ? "\(relationship.name) points to \(target) and its old destination \(was.destinationEntityName) is removed (refused by --strict-destinations; Core Data infers it and drops the links)"
                        : "\(relationship.name) now points to \(target) instead of \(was.destinationEntityName) (refused by --strict-destinations)"
                )
                return false
            }
            if let becomes {
                block(
                    """
                    \(relationship.name) now points to \(target) instead of \(was.destinationEntityName), whose objects \
                    become \(becomes): Core Data cannot infer what its links become
                    """)
                return false
            } else {
                note(
                    .linksDropped, relationship.name,
                    "\(relationship.name) now points to \(target) and its old destination \(was.destinationEntityName) is removed: its links are dropped"
                )
            }
            if mandatory {
                require(
                    relationship.name, .newValue,
                    "\(relationship.name) is required and starts empty; existing objects have nothing to point to",
                    relationship: true)
            }
            return false
        }

        /// P11: a to-many that becomes the inverse of a to-one is kept in that to-one's key column,
        /// which the step fills from the to-one's own source; links the to-many kept on its own
        /// (a join table: no inverse, or a to-many one) have no place left and are dropped, named.
        /// ProtonDrive 1.22 → 1.24 pairs `Photo.children` and `Photo.parent`, each with no
        /// inverse before. Returns whether that is so (the relationship then starts from its
        /// inverse's links, as a new one would).
        mutating func becomesInverseKey(_ relationship: RelationshipDescription, was: RelationshipDescription) -> Bool {
            guard relationship.isToMany, let inverseName = relationship.inverseName,
                let destination = new.entity(named: relationship.destinationEntityName),
                let inverse = new.relationship(named: inverseName, in: destination), !inverse.isToMany
            else { return false }
            // Kept in its inverse's key before too: that key is what the step keeps.
            if let sourceInverse = was.inverseName.flatMap({ oldInverse(of: was, named: $0) }), !sourceInverse.isToMany
            {
                return false
            }
            note(
                .linksDropped, relationship.name,
                "\(relationship.name) is now the inverse of \(destination.name).\(inverseName), kept in its key: the links \(was.name) kept on its own are dropped"
            )
            return true
        }

        /// The source's relationship `name` on `relationship`'s destination entity (or its parents).
        func oldInverse(of relationship: RelationshipDescription, named name: String) -> RelationshipDescription? {
            old.entity(named: relationship.destinationEntityName).flatMap { old.relationship(named: name, in: $0) }
        }

        /// Every source property nothing paired with is dropped.
        mutating func noteRemoved() {
            for name in oldProperties.map(\.name) where !claimed.contains(name) {
                note(.removed, name, "\(name) removed")
            }
        }
    }

    /// Why Core Data cannot infer `was` → `now`'s type, or `nil` when it can (T1–T3).
    static func typeChange(from was: AttributeDescription, to now: AttributeDescription) -> String? {
        let (from, to) = (was.attributeType, now.attributeType)
        if from == to { return from == .undefined ? "\(now.name) has an undefined type" : nil }
        if numericTypes.contains(from) && numericTypes.contains(to) { return nil }
        // T3: Binary ↔ Transformable only with the destination's `NSMigrationAllowTypeTransformation`
        // key and no external storage on either side (CD).
        if Set([from, to]) == [.binaryData, .transformable], now.userInfo["NSMigrationAllowTypeTransformation"] != nil,
            !was.allowsExternalBinaryDataStorage, !now.allowsExternalBinaryDataStorage
        {
            return nil
        }
        return
            "\(now.name) changes type from \(from.displayName) to \(to.displayName) (Core Data infers type changes only among the numeric types and Boolean)"
    }

    /// E3: each destination hierarchy must take its rows from at most one source hierarchy
    /// (DOC: entities without a common parent in the source cannot share one in the destination;
    /// CD: "Cannot merge multiple root entity source tables into one destination entity root
    /// table"; FORUM: Stack Overflow 8250975).
    static func mergedHierarchies(
        in new: ManagedObjectModel, from old: ManagedObjectModel, entitySources: [String: String]
    ) -> [InferredMapping.Change] {
        new.entities.filter { $0.parentName == nil }.compactMap { root in
            let members = [root] + InferredMapping.descendants(of: root, in: new)
            let origins = Set(
                members.compactMap { entitySources[$0.name] }.compactMap { old.entity(named: $0) }.map {
                    old.rootEntity(of: $0).name
                })
            guard origins.count > 1 else { return nil }
            return .init(
                entity: root.name,
                description:
                    "hierarchy \(root.name) merges the old hierarchies \(origins.sorted().joined(separator: " and "))")
        }
    }
}
