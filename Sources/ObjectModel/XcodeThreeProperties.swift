import Foundation

/// The properties of an Xcode 3 entity (`XDPMAttribute`, `XDPMRelationship`), read into Core
/// Data's descriptions as ``XcodeThreeModelReader`` explains.
enum XcodeThreeProperties {
    /// Reads `object` and appends it to the attributes, relationships or fetched properties of `entity`.
    static func add(_ object: ArchivedObject, named name: String, to entity: inout EntityDescription) throws {
        let settings = try XcodeThreeSettings(of: object)
        let shared = try property(named: name, settings)
        switch object.className {
        case "XDPMAttribute": entity.attributes.append(try attribute(shared, settings))
        case "XDPMRelationship": entity.relationships.append(try relationship(shared, settings))
        case let kind? where kind.contains("FetchedProperty"):
            // No fixture has one. Its request is looked for among its settings as the entity's
            // `XDPMFetchRequest`s are; fetched properties are never hashed.
            guard let request = settings.values.values.first(where: { $0.className == "XDPMFetchRequest" }) else {
                throw XcodeThreeRefusal(
                    problem: "is a fetched property (\(kind)) whose fetch request Chrysalis cannot find",
                    fix: "open the model in Xcode 4 or later and save it as a contents file")
            }
            entity.fetchedProperties.append(
                FetchedPropertyDescription(shared, fetchRequest: try fetchRequest(request, owner: entity.name)))
        default:
            throw XcodeThreeRefusal(
                problem: "is of class \(object.className ?? "(none)"), not a kind of property Chrysalis knows",
                fix: "report the Xcode version that wrote the model so Chrysalis can learn it")
        }
    }

    /// The `XD_PPSK_` settings every kind shares. All 13,176 properties in the fixtures carry
    /// `isOptional`, `isTransient` and `userInfo`; an absent flag is NO, as in the XML.
    private static func property(named name: String, _ settings: XcodeThreeSettings) throws -> PropertyDescription {
        var other: [String: String] = [:]
        // Xcode 4 kept these as XML attributes (Pocket's PocketModel: spotlightIndexingEnabled="YES");
        // carried under those names so a rewritten `contents` keeps them. Never hashed.
        if try settings.bool("XD_PPSK_isSpotlightIndexed") == true { other["spotlightIndexingEnabled"] = "YES" }
        if try settings.bool("XD_PPSK_isStoredInTruthFile") == true { other["storedInTruthFile"] = "YES" }
        return PropertyDescription(
            name: name, isOptional: try settings.bool("XD_PPSK_isOptional") ?? false,
            isTransient: try settings.bool("XD_PPSK_isTransient") ?? false,
            // An elementID equal to the name stays, as BookPlayer's XML keeps elementID="darkAccentHex"
            // on `darkAccentHex`.
            renamingIdentifier: try settings.nonEmptyString("XD_PPSK_elementID"),
            versionHashModifier: try settings.nonEmptyString("XD_PPSK_versionHashModifier"),
            userInfo: try settings.userInfo("XD_PPSK_userInfo"), otherXMLAttributes: other)
    }

    /// `XD_PAttK_attributeType` is `NSAttributeType`'s raw value (700 String, 1800 Transformable,
    /// 1100 UUID, 1200 URI in the mapping models' copies), hashed as it is.
    private static func attribute(_ shared: PropertyDescription, _ settings: XcodeThreeSettings) throws
        -> AttributeDescription
    {
        let raw = try settings.integer("XD_PAttK_attributeType") ?? 0
        guard let type = AttributeType(rawValue: raw) else {
            throw XcodeThreeRefusal(
                problem: "has attribute type \(raw), which Core Data does not have",
                fix: "choose the attribute's type in Xcode")
        }
        // Strings as written: "" stays "" (26 defaults, 6 transformer names in the XML of the same versions).
        return AttributeDescription(
            shared, type: type, defaultValueString: try settings.string("XD_PAttK_defaultValueAsString"),
            allowsExternalBinaryDataStorage: try settings.bool("XD_PAttK_allowsExternalBinaryDataStorage") ?? false,
            valueTransformerName: try settings.string("XD_PAttK_valueTransformerName"),
            isIndexed: try settings.bool("XD_PPSK_isIndexed") ?? false,
            minValueString: try settings.string("XD_PAttK_minValueString"),
            maxValueString: try settings.string("XD_PAttK_maxValueString"),
            regularExpressionString: try settings.string("XD_PAttK_regularExpressionString"))
    }

    /// Counts are hashed as stored, and the XML of the same version stores the same numbers:
    /// WordPress 12's to-manys have maxCount 0 (13: toMany="YES", no maxCount), its optional
    /// to-ones minCount 1 maxCount 1 (13: optional="YES" minCount="1" maxCount="1"). No archive
    /// in the fixtures stores -1. The oldest (Apple's Recipes, 2008) leave out `isToMany` on
    /// to-ones (min 1, max 1 stored) and both counts on to-manys: read as the XML reads a
    /// to-many without counts, 0 and 0. No fixture pairs that shape with a file Core Data wrote.
    private static func relationship(_ shared: PropertyDescription, _ settings: XcodeThreeSettings) throws
        -> RelationshipDescription
    {
        guard let destination = try settings.object("XD_PRK_destination")?.string("_name") else {
            throw XcodeThreeRefusal(
                problem: "is a relationship with no destination entity", fix: "choose its destination in Xcode")
        }
        // The inverse is the `XDPMRelationship` itself; its `_owner` is the entity declaring it
        // (the destination in all 2,554 inverses of the fixtures).
        let inverse = settings.object("XD_PRK_inverseRelationship")
        let maxCount = try settings.integer("XD_PRK_maxCount")
        let isToMany = try settings.bool("XD_PRK_isToMany") ?? maxCount.map { $0 != 1 } ?? false
        // NSDeleteRule: 1 Nullify, 2 Cascade in the XML of the same versions; 0 No Action, 3 Deny.
        let rules: [RelationshipDescription.DeleteRule] = [.noAction, .nullify, .cascade, .deny]
        let rule = try settings.integer("XD_PRK_deleteRule") ?? 1
        guard rules.indices.contains(rule) else {
            throw XcodeThreeRefusal(
                problem: "has delete rule \(rule), which Core Data does not have",
                fix: "choose its delete rule in Xcode")
        }
        var relationship = RelationshipDescription(
            shared, destination: destination, inverse: try inverse?.string("_name"),
            inverseEntity: try inverse?.object("_owner")?.string("_name"), isToMany: isToMany,
            isOrdered: try settings.bool("XD_PRK_ordered") ?? false,
            minCount: try settings.integer("XD_PRK_minCount") ?? 0, maxCount: maxCount ?? (isToMany ? 0 : 1),
            deleteRule: rules[rule])
        // WordPress 13's XML writes indexed="YES" on the 24 relationships 12 flags `isIndexed`; the
        // XML reader keeps it among a relationship's other attributes. Never hashed.
        if try settings.bool("XD_PPSK_isIndexed") == true { relationship.otherXMLAttributes["indexed"] = "YES" }
        return relationship
    }

    /// An `XDPMFetchRequest`: `_name`, `_entity` (an `XDPMEntity`), `_predicateString`.
    static func fetchRequest(_ object: ArchivedObject, owner: String) throws -> FetchRequestTemplate {
        FetchRequestTemplate(
            name: try object.string("_name") ?? "", entityName: try object.object("_entity")?.string("_name") ?? owner,
            predicateString: try object.string("_predicateString"))
    }
}

/// The settings of one Xcode 3 element. Xcode keeps each as a UML property (`XDUMLPropertyImp`)
/// whose `_default` is the value, inside a stereotype (`XD_PStereotype` for entities,
/// `XD_PPropStereotype`, `XD_PAtt_Stereotype`, `XD_PR_Stereotype` for properties). The keys' prefixes
/// keep them apart, so one dictionary holds all of an element's settings; `$null` means unset.
struct XcodeThreeSettings {
    private(set) var values: [String: ArchivedObject] = [:]

    init(of element: ArchivedObject) throws {
        for (_, stereotype) in try element.object("XDBucketForStereotypesstorage")?.pairs ?? [] {
            for (key, property) in try stereotype.object("XDBucketForOwnedAttributesstorage")?.pairs ?? [] {
                if let key = key.stringValue, let value = try property.object("_default") { values[key] = value }
            }
        }
    }

    func object(_ key: String) -> ArchivedObject? { values[key] }

    func string(_ key: String) throws -> String? {
        guard let value = values[key] else { return nil }
        guard let text = value.stringValue else { throw mistyped(key, "text") }
        return text
    }

    /// The string under `key`, with "" read as unset (renaming identifiers, hash modifiers).
    func nonEmptyString(_ key: String) throws -> String? {
        try string(key).flatMap { $0.isEmpty ? nil : $0 }
    }

    func bool(_ key: String) throws -> Bool? {
        guard let value = values[key] else { return nil }
        switch value.plainValue {
        case let flag as Bool: return flag
        case let number as Int: return number != 0
        case let number as NSNumber: return number.boolValue
        default: throw mistyped(key, "a flag")
        }
    }

    func integer(_ key: String) throws -> Int? {
        guard let value = values[key] else { return nil }
        switch value.plainValue {
        case let number as Int: return number
        case let number as NSNumber where !(value.plainValue is Bool): return number.intValue
        default: throw mistyped(key, "a whole number")
        }
    }

    /// An array of arrays of property names (or of properties, read by `_name`).
    func nameLists(_ key: String) throws -> [[String]] {
        try (values[key]?.members ?? []).map { list in
            try list.members.map { member in
                guard let name = try member.stringValue ?? member.string("_name") else {
                    throw mistyped(key, "lists of property names")
                }
                return name
            }
        }
    }

    /// userInfo as the XML's entries: text kept, other values described (Xcode 3's Sync Services
    /// keys nest dictionaries: `com.apple.syncservices.AutomaticResolutionPolicy`). Never hashed.
    func userInfo(_ key: String) throws -> [String: String] {
        var info: [String: String] = [:]
        for (name, value) in try values[key]?.pairs ?? [] {
            if let name = name.stringValue { info[name] = try Self.describe(value, depth: 0) }
        }
        return info
    }

    private static func describe(_ value: ArchivedObject, depth: Int) throws -> String {
        if let text = value.stringValue { return text }
        switch value.plainValue {
        case let flag as Bool: return flag ? "YES" : "NO"
        case let number as Int: return String(number)
        case let number as NSNumber: return number.stringValue
        case .some(let other): return "\(other)"
        case nil: break
        }
        // Bounded: a hostile archive may nest a collection in itself.
        guard depth < 4 else { return "…" }
        if value.classNames.contains("NSDictionary") {
            let entries = try value.pairs.map {
                "\($0.key.stringValue ?? "?") = \(try describe($0.value, depth: depth + 1));"
            }
            return "{" + entries.joined(separator: " ") + "}"
        }
        return "(" + (try value.members.map { try describe($0, depth: depth + 1) }).joined(separator: ", ") + ")"
    }

    private func mistyped(_ key: String, _ expected: String) -> XcodeThreeRefusal {
        XcodeThreeRefusal(
            problem: "setting \(key) is not \(expected)",
            fix: "restore the elements file from version control, or open the model in Xcode and save it again")
    }
}
