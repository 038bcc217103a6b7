import Foundation

/// Reads one Xcode model version (`X.xcdatamodel/contents`) into a ``ManagedObjectModel``,
/// pointing every error and finding at its file and line.
///
/// XML that cannot be read as a model throws. A model that reads is returned whatever Core Data
/// would say of it; ``readFile(contentsOf:)`` also gives each ``ModelProblem`` with its line.
public enum ModelXMLReader {
    /// Reads the `contents` file at `url`.
    ///
    /// - Parameter url: The version's `contents` file.
    /// - Returns: The model, whatever Core Data would say of it.
    /// - Throws: A `ModelFileError` pointing at the file and line when it cannot be read, is not a
    ///   model, or has an entity inheriting too deeply.
    public static func read(contentsOf url: URL) throws -> ManagedObjectModel {
        try readFile(contentsOf: url).model
    }

    /// Reads model XML; `file` names it in errors.
    ///
    /// - Parameters:
    ///   - data: The XML.
    ///   - file: The path errors name.
    /// - Returns: The model, whatever Core Data would say of it.
    /// - Throws: A `ModelFileError` pointing at `file` and the line when the XML is malformed, is
    ///   not a model, or has an entity inheriting too deeply.
    public static func read(_ data: Data, file: String) throws -> ManagedObjectModel {
        try readFile(data, file: file).model
    }

    /// Reads the `contents` file at `url`, with what Core Data would say of the model.
    ///
    /// - Parameter url: The version's `contents` file.
    /// - Returns: The model, and each problem Core Data would find with its line.
    /// - Throws: A `ModelFileError` pointing at the file and line when it cannot be read, is not a
    ///   model, or has an entity inheriting too deeply.
    public static func readFile(contentsOf url: URL) throws -> (model: ManagedObjectModel, findings: [ModelFinding]) {
        let data = try InputFile.read(
            url, what: "a model's contents file", fix: "check the model bundle: give its .xcdatamodeld")
        return try readFile(data, file: url.path)
    }

    /// Reads model XML, with what Core Data would say of the model; `file` names it.
    ///
    /// - Parameters:
    ///   - data: The XML.
    ///   - file: The path errors and findings name.
    /// - Returns: The model, and each problem Core Data would find with its line.
    /// - Throws: A `ModelFileError` pointing at `file` and the line when the XML is malformed, is
    ///   not a model, or has an entity inheriting too deeply.
    public static func readFile(_ data: Data, file: String) throws -> (
        model: ManagedObjectModel, findings: [ModelFinding]
    ) {
        let root = try XMLTree.parse(data, file: file)
        var reader = Reader(file: file)
        let model = try reader.model(root)
        // Chrysalis's own limit, not Core Data's: every hash walks each entity's parents, and a
        // hostile chain hundreds deep took minutes. No real model comes near it.
        if let deep = model.entityInheritingTooDeeply() {
            let place = reader.places[deep.name]
            throw ModelFileError(
                file: file, line: place?.line, element: place.map { "\($0.tag) in entity \"\(deep.name)\"" },
                problem: "inherits through more than \(ManagedObjectModel.maximumInheritanceDepth) parent entities",
                fix: "flatten the hierarchy: no real model is nested this deeply")
        }
        let findings = model.problems().map { problem in
            let place =
                reader.places[problem.property.map { "\(problem.entity).\($0)" } ?? problem.entity]
                ?? reader.places[problem.entity]
            return ModelFinding(problem, file: file, line: place?.line, element: place?.tag)
        }
        return (model, findings)
    }
}

/// One pass over the XML tree; remembers where each entity and property was for later errors.
private struct Reader {
    let file: String
    var places: [String: (line: Int, tag: String)] = [:]

    init(file: String) { self.file = file }

    func error(_ element: XMLTree, in entity: String? = nil, _ problem: String, fix: String? = nil) -> ModelFileError {
        ModelFileError(
            file: file, line: element.line,
            element: element.tag + (entity.map { " in entity \"\($0)\"" } ?? ""), problem: problem, fix: fix)
    }

    func required(_ key: String, of element: XMLTree, in entity: String? = nil) throws -> String {
        guard let value = element.attributes[key], !value.isEmpty else {
            throw error(element, in: entity, "has no \(key)", fix: "add \(key)=\"…\"")
        }
        return value
    }

    func integer(_ key: String, of element: XMLTree, in entity: String) throws -> Int? {
        guard let text = element.attributes[key] else { return nil }
        guard let value = Int(text) else {
            throw error(
                element, in: entity, "\(key)=\"\(text)\" is not a whole number", fix: "write \(key) as a whole number")
        }
        return value
    }

    mutating func model(_ root: XMLTree) throws -> ManagedObjectModel {
        guard root.name == "model" else {
            throw error(
                root, "is not an Xcode data model (the root element must be <model>)",
                fix: "point Chrysalis at an .xcdatamodel's contents file")
        }
        var model = ManagedObjectModel(
            entities: [], versionIdentifiers: [root.attributes["userDefinedModelVersionIdentifier"] ?? ""],
            documentAttributes: root.attributes.filter { $0.key != "userDefinedModelVersionIdentifier" })
        for child in root.children {
            switch child.name {
            case "entity": model.entities.append(try entity(child))
            case "configuration":
                model.configurations.append(
                    Configuration(
                        name: try required("name", of: child),
                        entityNames: try child.children(named: "memberEntity").map { try required("name", of: $0) },
                        otherXMLAttributes: child.attributes.filter { $0.key != "name" }))
            case "fetchRequest": model.fetchRequestTemplates.append(try fetchRequest(child, in: nil))
            case "composite":
                let name = try required("name", of: child)
                model.composites.append(
                    CompositeDescription(
                        name: name,
                        attributes: try child.children.map { element in
                            guard element.name == "attribute" else { throw unknown(element, in: name) }
                            return try attribute(element, in: name)
                        }))
            case "elements": continue  // diagram layout only
            default: throw unknown(child, in: nil)
            }
        }
        return model
    }

    func unknown(_ element: XMLTree, in entity: String?) -> ModelFileError {
        error(
            element, in: entity, "is not an element Chrysalis knows in a data model",
            fix: "remove it, or report the Xcode version that wrote it so Chrysalis can learn it")
    }

    mutating func entity(_ element: XMLTree) throws -> EntityDescription {
        let name = try required("name", of: element)
        places[name] = (element.line, element.tag)
        let known: Set = [
            "name", "representedClassName", "parentEntity", "isAbstract", "elementID", "versionHashModifier",
        ]
        var entity = EntityDescription(
            name: name, representedClassName: element.attributes["representedClassName"],
            parentName: element.attributes["parentEntity"], isAbstract: element.flag("isAbstract"),
            renamingIdentifier: element.attributes["elementID"],
            versionHashModifier: element.attributes["versionHashModifier"],
            otherXMLAttributes: element.attributes.filter { !known.contains($0.key) })
        for child in element.children {
            if let propertyName = child.attributes["name"],
                ["attribute", "relationship", "fetchedProperty"].contains(child.name)
            {
                places["\(name).\(propertyName)"] = (child.line, child.tag)
            }
            switch child.name {
            case "attribute": entity.attributes.append(try attribute(child, in: name))
            case "relationship": entity.relationships.append(try relationship(child, in: name))
            case "fetchedProperty": entity.fetchedProperties.append(try fetchedProperty(child, in: name))
            case "uniquenessConstraints":
                entity.uniquenessConstraints = try child.children(named: "uniquenessConstraint").map {
                    try $0.children(named: "constraint").map { try required("value", of: $0, in: name) }
                }
            case "compoundIndexes":
                entity.compoundIndexes = try child.children(named: "compoundIndex").map {
                    try $0.children(named: "index").map { try required("value", of: $0, in: name) }
                }
            case "fetchIndex": entity.fetchIndexes.append(try fetchIndex(child, in: name))
            case "userInfo": entity.userInfo = try userInfo(child, in: name)
            default: throw unknown(child, in: name)
            }
        }
        return entity
    }

    /// A `<fetchedProperty>` with its `<fetchRequest>`.
    func fetchedProperty(_ element: XMLTree, in entity: String) throws -> FetchedPropertyDescription {
        guard let request = element.children(named: "fetchRequest").first else {
            throw error(
                element, in: entity, "has no <fetchRequest>",
                fix: "add the fetch request or remove the fetched property")
        }
        return FetchedPropertyDescription(
            try property(element, in: entity, known: []), fetchRequest: try fetchRequest(request, in: entity))
    }

    /// A `<fetchIndex>` and its elements.
    func fetchIndex(_ element: XMLTree, in entity: String) throws -> FetchIndex {
        FetchIndex(
            name: try required("name", of: element, in: entity),
            elements: try element.children(named: "fetchIndexElement").map {
                FetchIndex.Element(
                    property: try required("property", of: $0, in: entity), type: $0.attributes["type"] ?? "Binary",
                    isAscending: $0.attributes["order"] != "descending")
            })
    }

    func userInfo(_ element: XMLTree, in entity: String) throws -> [String: String] {
        var info: [String: String] = [:]
        for entry in element.children(named: "entry") {
            info[try required("key", of: entry, in: entity)] = entry.attributes["value"] ?? ""
        }
        return info
    }

    /// The shared part of a property; `known` lists the kind's own XML attributes.
    func property(_ element: XMLTree, in entity: String, known: Set<String>) throws -> PropertyDescription {
        let shared: Set = ["name", "optional", "transient", "elementID", "versionHashModifier"]
        return PropertyDescription(
            name: try required("name", of: element, in: entity), isOptional: element.flag("optional"),
            isTransient: element.flag("transient"), isReadOnly: element.flag("derived"),
            renamingIdentifier: element.attributes["elementID"],
            versionHashModifier: element.attributes["versionHashModifier"],
            userInfo: try element.children(named: "userInfo").first.map { try userInfo($0, in: entity) } ?? [:],
            otherXMLAttributes: element.attributes.filter { !shared.contains($0.key) && !known.contains($0.key) })
    }

    func attribute(_ element: XMLTree, in entity: String) throws -> AttributeDescription {
        let known: Set = [
            "attributeType", "defaultValueString", "allowsExternalBinaryDataStorage", "preserveAfterDeletion",
            "valueTransformerName", "customClassName", "usesScalarValueType", "indexed", "minValueString",
            "maxValueString", "regularExpressionString", "derived", "derivationExpression",
        ]
        var type = AttributeType.undefined
        if let name = element.attributes["attributeType"] {
            guard let known = AttributeType(xcodeName: name) else {
                throw error(
                    element, in: entity, "unknown attributeType \"\(name)\"",
                    fix: "use one of: \(AttributeType.xcodeNames.joined(separator: ", "))")
            }
            type = known
        }
        let attributes = element.attributes
        if element.flag("derived"), attributes["derivationExpression"] == nil {
            throw error(
                element, in: entity, "is derived but has no derivationExpression", fix: "add derivationExpression=\"…\""
            )
        }
        return AttributeDescription(
            try property(element, in: entity, known: known), type: type,
            defaultValueString: attributes["defaultValueString"],
            allowsExternalBinaryDataStorage: element.flag("allowsExternalBinaryDataStorage"),
            preservesValueInHistoryOnDeletion: element.flag("preserveAfterDeletion"),
            valueTransformerName: attributes["valueTransformerName"], customClassName: attributes["customClassName"],
            usesScalarValueType: attributes["usesScalarValueType"].map { $0 == "YES" },
            isIndexed: element.flag("indexed"),
            minValueString: attributes["minValueString"], maxValueString: attributes["maxValueString"],
            regularExpressionString: attributes["regularExpressionString"],
            derivationExpression: element.flag("derived") ? attributes["derivationExpression"] : nil)
    }

    func relationship(_ element: XMLTree, in entity: String) throws -> RelationshipDescription {
        let known: Set = [
            "destinationEntity", "inverseName", "inverseEntity", "toMany", "ordered", "minCount", "maxCount",
            "deletionRule",
        ]
        var rule = RelationshipDescription.DeleteRule.nullify
        if let text = element.attributes["deletionRule"] {
            guard let parsed = RelationshipDescription.DeleteRule(rawValue: text) else {
                throw error(
                    element, in: entity, "unknown deletionRule \"\(text)\"",
                    fix:
                        """
                        use one of: \
                        \(RelationshipDescription.DeleteRule.allCases.map(\.rawValue).joined(separator: ", "))
                        """
                )
            }
            rule = parsed
        }
        return RelationshipDescription(
            try property(element, in: entity, known: known),
            destination: try required("destinationEntity", of: element, in: entity),
            inverse: element.attributes["inverseName"], inverseEntity: element.attributes["inverseEntity"],
            isToMany: element.flag("toMany"), isOrdered: element.flag("ordered"),
            minCount: try integer("minCount", of: element, in: entity) ?? 0,
            maxCount: try integer("maxCount", of: element, in: entity), deleteRule: rule)
    }

    func fetchRequest(_ element: XMLTree, in entity: String?) throws -> FetchRequestTemplate {
        FetchRequestTemplate(
            name: try required("name", of: element, in: entity),
            entityName: try required("entity", of: element, in: entity),
            predicateString: element.attributes["predicateString"],
            otherXMLAttributes: element.attributes.filter { !["name", "entity", "predicateString"].contains($0.key) })
    }
}
