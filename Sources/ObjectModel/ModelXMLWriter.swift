import Foundation

/// Writes a ``ManagedObjectModel`` as an Xcode `contents` file: the layout Xcode itself writes,
/// so the model opens in Xcode and reads back here to an equal model with equal hashes.
public enum ModelXMLWriter {
    /// The XML text of `model`.
    ///
    /// - Parameter model: The model to write.
    /// - Returns: The `contents` file's text.
    public static func xml(for model: ManagedObjectModel) -> String {
        var out = XMLOutput()
        out.line(0, #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#)
        var root = model.documentAttributes
        root["type"] = root["type"] ?? "com.apple.IDECoreDataModeler.DataModel"
        root["documentVersion"] = root["documentVersion"] ?? "1.0"
        root["userDefinedModelVersionIdentifier"] = model.versionIdentifiers.first ?? ""
        out.open(
            0, "model",
            ordered(
                root,
                first: [
                    "type", "documentVersion", "lastSavedToolsVersion", "systemVersion",
                    "minimumToolsVersion", "sourceLanguage", "userDefinedModelVersionIdentifier",
                ]))
        for entity in model.entities { write(entity, to: &out) }
        for template in model.fetchRequestTemplates { out.empty(1, "fetchRequest", attributes(of: template)) }
        for composite in model.composites {
            guard !composite.attributes.isEmpty else { out.empty(1, "composite", [("name", composite.name)]); continue }
            out.open(1, "composite", [("name", composite.name)])
            for attribute in composite.attributes {
                element("attribute", property: attribute.property, attributes(of: attribute), depth: 2, to: &out)
            }
            out.close(1, "composite")
        }
        for configuration in model.configurations {
            out.open(1, "configuration", [("name", configuration.name)] + ordered(configuration.otherXMLAttributes))
            for name in configuration.entityNames { out.empty(2, "memberEntity", [("name", name)]) }
            out.close(1, "configuration")
        }
        out.close(0, "model")
        return out.text
    }

    private static func write(_ entity: EntityDescription, to out: inout XMLOutput) {
        var head: [(String, String)] = [("name", entity.name)]
        head.append(optional: "representedClassName", entity.representedClassName)
        head.append(optional: "parentEntity", entity.parentName)
        if entity.isAbstract { head.append(("isAbstract", "YES")) }
        head.append(optional: "elementID", entity.renamingIdentifier)
        head.append(optional: "versionHashModifier", entity.versionHashModifier)
        head += ordered(entity.otherXMLAttributes)
        let isEmpty =
            entity.attributes.isEmpty && entity.relationships.isEmpty && entity.fetchedProperties.isEmpty
            && entity.uniquenessConstraints.isEmpty && entity.fetchIndexes.isEmpty && entity.compoundIndexes.isEmpty
            && entity.userInfo.isEmpty
        if isEmpty { return out.empty(1, "entity", head) }
        out.open(1, "entity", head)
        for attribute in entity.attributes {
            element("attribute", property: attribute.property, attributes(of: attribute), depth: 2, to: &out)
        }
        for relationship in entity.relationships {
            element("relationship", property: relationship.property, attributes(of: relationship), depth: 2, to: &out)
        }
        for fetched in entity.fetchedProperties {
            out.open(2, "fetchedProperty", shared(fetched.property) + ordered(fetched.property.otherXMLAttributes))
            out.empty(3, "fetchRequest", attributes(of: fetched.fetchRequest))
            userInfo(fetched.userInfo, depth: 3, to: &out)
            out.close(2, "fetchedProperty")
        }
        for index in entity.fetchIndexes {
            out.open(2, "fetchIndex", [("name", index.name)])
            for item in index.elements {
                out.empty(
                    3, "fetchIndexElement",
                    [
                        ("property", item.property), ("type", item.type),
                        ("order", item.isAscending ? "ascending" : "descending"),
                    ])
            }
            out.close(2, "fetchIndex")
        }
        groups("compoundIndexes", "compoundIndex", "index", entity.compoundIndexes, to: &out)
        groups("uniquenessConstraints", "uniquenessConstraint", "constraint", entity.uniquenessConstraints, to: &out)
        userInfo(entity.userInfo, depth: 2, to: &out)
        out.close(1, "entity")
    }

    private static func element(
        _ name: String, property: PropertyDescription, _ own: [(String, String)], depth: Int,
        to out: inout XMLOutput
    ) {
        var attributes = shared(property)
        attributes.insert(contentsOf: own, at: min(attributes.count, 3))
        attributes += ordered(property.otherXMLAttributes)
        guard !property.userInfo.isEmpty else { return out.empty(depth, name, attributes) }
        out.open(depth, name, attributes)
        userInfo(property.userInfo, depth: depth + 1, to: &out)
        out.close(depth, name)
    }

    private static func shared(_ property: PropertyDescription) -> [(String, String)] {
        var list: [(String, String)] = [("name", property.name)]
        if property.isOptional { list.append(("optional", "YES")) }
        if property.isTransient { list.append(("transient", "YES")) }
        list.append(optional: "elementID", property.renamingIdentifier)
        list.append(optional: "versionHashModifier", property.versionHashModifier)
        return list
    }

    private static func attributes(of attribute: AttributeDescription) -> [(String, String)] {
        var list: [(String, String)] = []
        list.append(optional: "attributeType", attribute.attributeType.xcodeName)
        list.append(optional: "minValueString", attribute.minValueString)
        list.append(optional: "maxValueString", attribute.maxValueString)
        list.append(optional: "regularExpressionString", attribute.regularExpressionString)
        list.append(optional: "defaultValueString", attribute.defaultValueString)
        if attribute.allowsExternalBinaryDataStorage { list.append(("allowsExternalBinaryDataStorage", "YES")) }
        if attribute.preservesValueInHistoryOnDeletion { list.append(("preserveAfterDeletion", "YES")) }
        if attribute.isIndexed { list.append(("indexed", "YES")) }
        list.append(optional: "valueTransformerName", attribute.valueTransformerName)
        list.append(optional: "customClassName", attribute.customClassName)
        if let expression = attribute.derivationExpression {
            list += [("derived", "YES"), ("derivationExpression", expression)]
        }
        list.append(optional: "usesScalarValueType", attribute.usesScalarValueType.map { $0 ? "YES" : "NO" })
        return list
    }

    private static func attributes(of relationship: RelationshipDescription) -> [(String, String)] {
        var list: [(String, String)] = []
        if relationship.isToMany { list.append(("toMany", "YES")) }
        if relationship.isOrdered { list.append(("ordered", "YES")) }
        if relationship.minCount != 0 { list.append(("minCount", String(relationship.minCount))) }
        if relationship.maxCount != 0 || !relationship.isToMany {
            list.append(("maxCount", String(relationship.maxCount)))
        }
        list.append(("deletionRule", relationship.deleteRule.rawValue))
        list.append(("destinationEntity", relationship.destinationEntityName))
        list.append(optional: "inverseName", relationship.inverseName)
        list.append(optional: "inverseEntity", relationship.inverseEntityName)
        return list
    }

    private static func attributes(of template: FetchRequestTemplate) -> [(String, String)] {
        var list: [(String, String)] = [("name", template.name), ("entity", template.entityName)]
        list.append(optional: "predicateString", template.predicateString)
        return list + ordered(template.otherXMLAttributes)
    }

    private static func groups(
        _ outer: String, _ inner: String, _ leaf: String, _ lists: [[String]], to out: inout XMLOutput
    ) {
        guard !lists.isEmpty else { return }
        out.open(2, outer, [])
        for list in lists {
            out.open(3, inner, [])
            for value in list { out.empty(4, leaf, [("value", value)]) }
            out.close(3, inner)
        }
        out.close(2, outer)
    }

    private static func userInfo(_ info: [String: String], depth: Int, to out: inout XMLOutput) {
        guard !info.isEmpty else { return }
        out.open(depth, "userInfo", [])
        for (key, value) in ordered(info) { out.empty(depth + 1, "entry", [("key", key), ("value", value)]) }
        out.close(depth, "userInfo")
    }

    /// `first` in that order, then the rest by name: stable output for stable diffs.
    private static func ordered(_ attributes: [String: String], first: [String] = []) -> [(String, String)] {
        first.compactMap { key in attributes[key].map { (key, $0) } }
            + attributes.filter { !first.contains($0.key) }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}

/// Indented XML with escaped attribute values.
private struct XMLOutput {
    var text = ""

    mutating func line(_ depth: Int, _ content: String) {
        text += String(repeating: "    ", count: depth) + content + "\n"
    }
    mutating func open(_ depth: Int, _ name: String, _ attributes: [(String, String)]) {
        line(depth, "<\(name)\(render(attributes))>")
    }
    mutating func empty(_ depth: Int, _ name: String, _ attributes: [(String, String)]) {
        line(depth, "<\(name)\(render(attributes))/>")
    }
    mutating func close(_ depth: Int, _ name: String) { line(depth, "</\(name)>") }

    private func render(_ attributes: [(String, String)]) -> String {
        attributes.map { " \($0.0)=\"\(escape($0.1))\"" }.joined()
    }

    private func escape(_ value: String) -> String { XMLEscaping.attributeValue(value) }
}

/// Text as an XML attribute value: markup characters and line breaks as references, so a value
/// reads back exactly. Shared by every XML file Chrysalis writes.
package enum XMLEscaping {
    package static func attributeValue(_ value: String) -> String {
        var escaped = ""
        for character in value.unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "\n": escaped += "&#10;"
            case "\r": escaped += "&#13;"
            case "\t": escaped += "&#9;"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }
}

extension Array where Element == (String, String) {
    fileprivate mutating func append(optional key: String, _ value: String?) {
        if let value { append((key, value)) }
    }
}
