import Foundation

/// Reads a model that Core Data archived with `NSKeyedArchiver`: a store's `Z_MODELCACHE`
/// (once inflated) or a compiled `.mom` file. The result hashes exactly like the original.
public enum ArchivedModelReader {
    /// Reads the archived `NSManagedObjectModel` in `data`; `source` names it in errors.
    ///
    /// - Parameters:
    ///   - data: The archive's bytes (an inflated `Z_MODELCACHE`, or a `.mom` file).
    ///   - source: Where the data came from, as errors name it.
    /// - Returns: The model the archive holds.
    /// - Throws: A `ModelFileError` naming `source` when the bytes are not a keyed archive of an
    ///   `NSManagedObjectModel` or a part of it cannot be read.
    public static func read(_ data: Data, source: String) throws -> ManagedObjectModel {
        do {
            let archive = try KeyedArchive(data: data)
            let root = try archive.topObject()
            guard root.className == "NSManagedObjectModel" else {
                throw KeyedArchive.Failure(
                    description:
                        "the archive holds a \(root.className ?? "nameless object"), not an NSManagedObjectModel")
            }
            return try model(root)
        } catch let failure as KeyedArchive.Failure {
            throw ModelFileError(
                file: source, problem: "archived model cannot be read: \(failure.description)",
                fix: "open the store with its .xcdatamodeld instead (--model)")
        }
    }

    private static func model(_ root: ArchivedObject) throws -> ManagedObjectModel {
        let entityObjects = try entityList(root)
        // Subentities list inherited properties too; a property is declared where its parent lacks it.
        var allNames: [String: Set<String>] = [:]
        for object in entityObjects {
            allNames[try name(of: object)] = Set(try properties(of: object).map(\.name))
        }
        var entities: [EntityDescription] = []
        for object in entityObjects {
            entities.append(
                try entity(
                    object, inherited: try object.object("NSSuperentity").flatMap { allNames[try name(of: $0)] } ?? []))
        }
        var configurations: [Configuration] = []
        for (key, value) in try root.object("NSConfigurations")?.pairs ?? [] {
            configurations.append(
                Configuration(name: key.stringValue ?? "", entityNames: try value.members.map(name(of:)).sorted()))
        }
        let model = ManagedObjectModel(
            entities: entities, configurations: configurations.sorted { $0.name < $1.name },
            versionIdentifiers: try root.object("NSVersionIdentifiers")?.members.compactMap(\.stringValue).sorted()
                ?? [])
        // Hashing walks every entity's parents: a hostile chain hundreds deep would take minutes.
        if let deep = model.entityInheritingTooDeeply() {
            throw KeyedArchive.Failure(
                description:
                    """
                    entity \(deep.name) inherits through more than \(ManagedObjectModel.maximumInheritanceDepth) \
                    parent entities
                    """
            )
        }
        // The XML reader refuses an entity that is its own parent, or a cycle of parents; a
        // compiled .mom or a store's cache is held to the same rule.
        if let problem = model.firstHierarchyProblem() {
            throw KeyedArchive.Failure(description: "entity \(problem.entity): \(problem.message)")
        }
        return model
    }

    private static func entityList(_ root: ArchivedObject) throws -> [ArchivedObject] {
        guard let entities = try root.object("NSEntities") else { return [] }
        if let values = try entities.object("values") { return try values.members }
        return try entities.pairs.map(\.value)
    }

    private static func name(of entity: ArchivedObject) throws -> String {
        guard let name = try entity.string("NSEntityName") else {
            throw KeyedArchive.Failure(description: "entity object \(entity.index) has no NSEntityName")
        }
        return name
    }

    /// The entity's properties by name, proxies resolved to the property they stand for.
    private static func properties(of entity: ArchivedObject) throws -> [(name: String, object: ArchivedObject)] {
        try (entity.object("NSProperties")?.pairs ?? []).map { key, value in
            let property =
                value.className == "_NSPropertyDescriptionProxy"
                ? try value.object("NSUnderlyingProperty") ?? value : value
            return (key.stringValue ?? "", property)
        }
    }

    private static func entity(_ object: ArchivedObject, inherited: Set<String>) throws -> EntityDescription {
        let name = try name(of: object)
        var entity = EntityDescription(
            name: name, representedClassName: try object.string("NSClassNameForEntity"),
            parentName: try object.object("NSSuperentity").map(Self.name(of:)),
            isAbstract: object.bool("NSIsAbstract") ?? false,
            renamingIdentifier: try object.string("NSRenamingIdentifier").flatMap { $0 == name ? nil : $0 },
            versionHashModifier: try object.string("NSVersionHashModifier"),
            uniquenessConstraints: try object.object("NSUniqueTuples")?.members.map {
                try $0.members.compactMap(constraintName)
            } ?? [],
            userInfo: try userInfo(object))
        for (propertyName, property) in try properties(of: object) where !inherited.contains(propertyName) {
            let shared = try common(property, name: propertyName)
            let classes = property.classNames
            if classes.contains("NSRelationshipDescription") {
                entity.relationships.append(try relationship(property, shared))
            } else if classes.contains("NSFetchedPropertyDescription") {
                let target =
                    try property.string("_NSFetchRequestEntityName")
                    ?? property.object("NSFetchRequest")?.object("NSEntity").map(Self.name(of:)) ?? name
                entity.fetchedProperties.append(
                    FetchedPropertyDescription(
                        shared,
                        fetchRequest: FetchRequestTemplate(name: "fetchedPropertyFetchRequest", entityName: target)))
            } else if classes.contains("NSAttributeDescription") {
                entity.attributes.append(try attribute(property, shared))
            } else {
                throw KeyedArchive.Failure(
                    description: "property \(name).\(propertyName) is a \(property.className ?? "nameless object")")
            }
        }
        entity.attributes.sort { $0.name < $1.name }
        entity.relationships.sort { $0.name < $1.name }
        entity.fetchedProperties.sort { $0.name < $1.name }
        try readIndexes(of: object, into: &entity)
        return entity
    }

    /// Compound indexes (`NSCompoundIndexes`, names or property descriptions) and fetch indexes
    /// (`NSFetchIndexDescriptions`). A model Core Data loaded archives each `indexed` attribute
    /// and each compound index a second time as a fetch index of the same name (Wire's
    /// `store2-65-0`: `normalizedUserDefinedName`, `internalIsArchived_lastModifiedDate`); those
    /// are the same index, so only fetch indexes of their own are kept.
    private static func readIndexes(of object: ArchivedObject, into entity: inout EntityDescription) throws {
        entity.compoundIndexes = try (object.object("NSCompoundIndexes")?.members ?? []).map { index in
            try index.members.compactMap(constraintName)
        }
        let indexed = Set(entity.attributes.filter(\.isIndexed).map(\.name))
        let compounds = Set(entity.compoundIndexes)
        for description in try object.object("NSFetchIndexDescriptions")?.members ?? [] {
            let name = try description.string("NSIndexName") ?? ""
            let elements = try (description.object("NSIndexElements")?.members ?? []).map { element in
                FetchIndex.Element(
                    property: try element.string("NSPropertyName") ?? "",
                    type: element.integer("NSFetchIndexElementType") == 1 ? "RTree" : "Binary",
                    isAscending: element.bool("NSAscending") ?? true)
            }
            let properties = elements.map(\.property)
            let derived =
                (properties.count == 1 && indexed.contains(properties[0]) && name == properties[0])
                || (compounds.contains(properties) && name == properties.joined(separator: "_"))
            if !derived && !elements.isEmpty { entity.fetchIndexes.append(FetchIndex(name: name, elements: elements)) }
        }
    }

    private static func constraintName(_ member: ArchivedObject) throws -> String? {
        try member.stringValue ?? member.string("NSPropertyName")
    }

    private static func userInfo(_ object: ArchivedObject) throws -> [String: String] {
        var info: [String: String] = [:]
        for (key, value) in try object.object("NSUserInfo")?.pairs ?? [] {
            if let key = key.stringValue { info[key] = value.plainValue.map { "\($0)" } ?? "" }
        }
        return info
    }

    /// Flags live either in booleans or packed in `_P` (0x2 optional, 0x4 read-only, 0x8 transient).
    private static func common(_ property: ArchivedObject, name: String) throws -> PropertyDescription {
        let packed = property.integer("_P") ?? 0
        return PropertyDescription(
            name: name, isOptional: property.bool("NSIsOptional") ?? (packed & 0x2 != 0),
            isTransient: property.bool("NSIsTransient") ?? (packed & 0x8 != 0),
            isReadOnly: property.bool("NSIsReadOnly") ?? (packed & 0x4 != 0),
            renamingIdentifier: try property.string("NSRenamingIdentifier").flatMap { $0 == name ? nil : $0 },
            versionHashModifier: try property.string("NSVersionHashModifier"), userInfo: try userInfo(property))
    }

    private static func attribute(_ object: ArchivedObject, _ shared: PropertyDescription) throws
        -> AttributeDescription
    {
        let raw = object.integer("NSAttributeType") ?? 0
        guard let type = AttributeType(rawValue: raw) else {
            throw KeyedArchive.Failure(description: "attribute \(shared.name) has unknown NSAttributeType \(raw)")
        }
        let flags = object.integer("NSFlagsKey") ?? 0
        let className = try object.string("NSAttributeValueClassName")
        return AttributeDescription(
            shared, type: type, defaultValueString: try object.object("NSDefaultValue").flatMap(defaultValueString),
            allowsExternalBinaryDataStorage: flags & 4 != 0, preservesValueInHistoryOnDeletion: flags & 16 != 0,
            valueTransformerName: try object.string("NSValueTransformerName"),
            customClassName: type == .transformable ? className : nil, isIndexed: object.bool("NSIsIndexed") ?? false,
            derivationExpression: try object.object("NSDerivationExpression").map { try ArchivedExpression.format($0) })
    }

    private static func defaultValueString(_ value: ArchivedObject) -> String? {
        switch value.plainValue {
        case let flag as Bool: return flag ? "YES" : "NO"
        case let text as String: return text
        case let number as NSNumber: return number.stringValue
        default: return nil
        }
    }

    private static func relationship(_ object: ArchivedObject, _ shared: PropertyDescription) throws
        -> RelationshipDescription
    {
        let destination =
            try object.object("NSDestinationEntity").map(Self.name(of:)) ?? object.string("_NSDestinationEntityName")
        guard let destination else {
            throw KeyedArchive.Failure(description: "relationship \(shared.name) has no destination entity")
        }
        let inverse = try object.object("NSInverseRelationship")
        let maxCount = object.integer("NSMaxCount") ?? 0
        let rules: [RelationshipDescription.DeleteRule] = [.noAction, .nullify, .cascade, .deny]
        let rule = object.integer("NSDeleteRule") ?? 1
        guard rules.indices.contains(rule) else {
            throw KeyedArchive.Failure(description: "relationship \(shared.name) has unknown NSDeleteRule \(rule)")
        }
        return RelationshipDescription(
            shared, destination: destination,
            inverse: try object.string("_NSInverseRelationshipName") ?? inverse?.string("NSPropertyName"),
            inverseEntity: try inverse?.object("NSEntity").map(Self.name(of:)) ?? destination,
            isToMany: maxCount != 1,
            isOrdered: object.bool("NSIsOrdered") ?? ((object.integer("_P") ?? 0) & 0x400 != 0),
            minCount: object.integer("NSMinCount") ?? 0, maxCount: maxCount, deleteRule: rules[rule])
    }
}
