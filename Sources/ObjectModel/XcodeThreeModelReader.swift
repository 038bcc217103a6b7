import Foundation

/// Reads a model version as Xcode 3 saved it (`Foo.xcdatamodel/elements`, with `layout` beside it
/// and no `contents`) into the ``ManagedObjectModel`` momc compiles from it, so that its version
/// hashes are the ones Core Data gives.
///
/// `elements` is a keyed archive of Xcode's own editor classes (`XDPMModel` at the root), not of
/// Core Data's. Each setting is a UML "stereotype" value (`XD_PPSK_isOptional`, …) rather than an
/// XML attribute. The rules below were found by reading every such archive in the fixtures:
/// WordPress 1–12, the corpus's Xcode 3 bundles, and the `sourcemodeldata`/`destinationmodeldata`
/// copies that every mapping model carries (also of XML versions). Each was checked against the
/// XML `contents` of the same version: entities with the same properties hash the same
/// (`XcodeThreeModelTests`). `layout` only places the diagram and is not read.
///
/// A model Core Data would refuse (a relationship to a missing entity, a parent cycle) still
/// reads, and ``ManagedObjectModel/problems()`` says what is wrong. Only what cannot be read at all
/// is refused, with a ``ModelFileError``.
public enum XcodeThreeModelReader {
    /// Reads `folder/elements`, where `folder` is an Xcode 3 `.xcdatamodel` directory.
    ///
    /// - Parameter folder: The Xcode 3 `.xcdatamodel` folder.
    /// - Returns: The model, whatever Core Data would say of it.
    /// - Throws: A `ModelFileError` when `elements` cannot be read, is not an Xcode 3 model, or
    ///   holds what Chrysalis cannot place.
    public static func read(folder: URL) throws -> ManagedObjectModel {
        let url = folder.appendingPathComponent("elements")
        let data = try InputFile.read(
            url, what: "an Xcode 3 model's elements file", fix: "check the model bundle: give its .xcdatamodeld")
        return try read(data, file: url.path)
    }

    /// Reads an `elements` archive; `file` names it in errors.
    ///
    /// - Parameters:
    ///   - data: The `elements` archive.
    ///   - file: The path errors name.
    /// - Returns: The model, whatever Core Data would say of it.
    /// - Throws: A `ModelFileError` naming `file` when the archive is damaged, is not an Xcode 3
    ///   model, or holds what Chrysalis cannot place.
    public static func read(_ data: Data, file: String) throws -> ManagedObjectModel {
        do {
            let archive: KeyedArchive
            do { archive = try KeyedArchive(data: data) } catch let failure as KeyedArchive.Failure {
                throw XcodeThreeRefusal(
                    problem: "is not an Xcode 3 model: \(failure.description)",
                    fix: "give the elements file of an Xcode 3 .xcdatamodel folder, or restore it from version control")
            }
            let root = try XcodeThreeRefusal.within(nil) { try archive.topObject() }
            guard root.className == "XDPMModel" else {
                let found = root.className ?? "a nameless object"
                throw XcodeThreeRefusal(
                    problem: "is not an Xcode 3 model: its archive holds \(found), not XDPMModel",
                    fix: "give the elements file of an Xcode 3 .xcdatamodel folder")
            }
            return try XcodeThreeModelReader.model(root)
        } catch let refusal as XcodeThreeRefusal {
            throw ModelFileError(file: file, element: refusal.element, problem: refusal.problem, fix: refusal.fix)
        } catch let failure as KeyedArchive.Failure {
            throw ModelFileError(
                file: file, problem: "the archive is damaged: \(failure.description)",
                fix: "restore the elements file from version control, or open the model in Xcode and save it again")
        }
    }

    private static func model(_ root: ArchivedObject) throws -> ManagedObjectModel {
        let package = try XcodeThreeRefusal.within(nil) { try root.object("_xd_rootPackage") }
        // Every fixture keeps its entities in the root package's classes; sub-packages are always
        // empty. Entities there would be lost, and their hashes with them, so refuse.
        let nested = try XcodeThreeRefusal.within(nil) {
            try package?.object("XDBucketForPackagesstorage")?.pairs ?? []
        }
        if !nested.isEmpty {
            throw XcodeThreeRefusal(
                problem: "keeps entities in \(nested.count) sub-package(s), which Chrysalis cannot place",
                fix: "open the model in Xcode 4 or later and save it as a contents file")
        }
        var entities: [EntityDescription] = []
        var templates: [FetchRequestTemplate] = []
        let classes = try XcodeThreeRefusal.within(nil) {
            try package?.object("XDBucketForClassesstorage")?.pairs ?? []
        }
        for (key, object) in classes {
            let name = try XcodeThreeRefusal.within(nil) { try object.string("_name") ?? key.stringValue ?? "" }
            let read = try XcodeThreeRefusal.within("entity \"\(name)\"") { try entity(object, name: name) }
            entities.append(read.entity)
            templates += read.templates
        }
        return try XcodeThreeRefusal.within(nil) {
            ManagedObjectModel(
                entities: entities.sorted { $0.name < $1.name }, configurations: try configurations(root),
                fetchRequestTemplates: templates.sorted { ($0.entityName, $0.name) < ($1.entityName, $1.name) },
                // Xcode 3's version identifier ("1.1", "2.0" in thepost's Recipes); mapping models' copies
                // hold what the XML's userDefinedModelVersionIdentifier held then (Delta's "1.0", Moody's
                // "5"). Absent in WordPress 1–12, read as "", as an empty XML field is. Never hashed.
                versionIdentifiers: [try root.string("_modelVersionIdentifier") ?? ""],
                // The XML format's two constants, which every `contents` (WordPress 13's Xcode 4
                // conversion included) and ModelXMLWriter write: rewritten, the model reads back equal.
                documentAttributes: ["type": "com.apple.IDECoreDataModeler.DataModel", "documentVersion": "1.0"])
        }
    }

    /// `_configurationsByName`: name → `XDPMConfiguration` whose `_entities` array lists the
    /// members in the order Harmony's XML lists its <memberEntity>s (its mapping models' copies).
    private static func configurations(_ root: ArchivedObject) throws -> [Configuration] {
        try (root.object("_configurationsByName")?.pairs ?? []).map { key, value in
            Configuration(
                name: key.stringValue ?? "",
                entityNames: try (value.object("_entities")?.members ?? []).map { try $0.string("_name") ?? "" })
        }.sorted { $0.name < $1.name }
    }

    private static func entity(_ object: ArchivedObject, name: String)
        throws -> (entity: EntityDescription, templates: [FetchRequestTemplate])
    {
        guard object.className == "XDPMEntity" else {
            throw XcodeThreeRefusal(
                problem: "is of class \(object.className ?? "(none)"), not XDPMEntity",
                fix: "report the Xcode version that wrote the model so Chrysalis can learn it")
        }
        let settings = try XcodeThreeSettings(of: object)
        // `XDBucketForGeneralizationsstorage` holds one `XDUMLGeneralizationImp` per parent; its
        // `_general` is the parent (WordPress 12: Post → BasePost → AbstractPost).
        let parents = try object.object("XDBucketForGeneralizationsstorage")?.members ?? []
        guard parents.count <= 1 else {
            throw XcodeThreeRefusal(
                problem: "has \(parents.count) parent entities; Core Data allows one",
                fix: "give the entity one parent in Xcode")
        }
        var className = try settings.string("XD_PSK_entityClassName")
        // Xcode 3 wrote the default class out (Recipes' `RecipeType`, RestKit's `Tag`); Xcode 4's
        // XML leaves it off, and the XML reader reads no representedClassName as that default.
        if className == "NSManagedObject" || className == "" { className = nil }
        var entity = EntityDescription(
            name: name, representedClassName: className,
            parentName: try parents.first?.object("_general")?.string("_name"),
            // `XD_PSK_isAbstract` and `_isAbstract` agree in all 1,645 entities of the fixtures.
            isAbstract: try settings.bool("XD_PSK_isAbstract") ?? object.bool("_isAbstract") ?? false,
            renamingIdentifier: try settings.nonEmptyString("XD_PSK_elementID"),
            versionHashModifier: try settings.nonEmptyString("XD_PSK_versionHashModifier"),
            // Arrays of property names, as the XML's <uniquenessConstraint>s (ReadingList's books_10–17,
            // hashed) and <compoundIndex>es (objc.io's Moody 2–6: markedForDeletionDate, updatedAt).
            uniquenessConstraints: try settings.nameLists("XDPMUniquenessConstraints"),
            compoundIndexes: try settings.nameLists("XDPMCompoundIndexes"),
            userInfo: try settings.userInfo("XD_PSK_userInfo"))
        for (key, property) in try object.object("XDBucketForOwnedAttributesstorage")?.pairs ?? [] {
            let propertyName = try property.string("_name") ?? key.stringValue ?? ""
            try XcodeThreeRefusal.within("property \"\(propertyName)\" in entity \"\(name)\"") {
                try XcodeThreeProperties.add(property, named: propertyName, to: &entity)
            }
        }
        entity.attributes.sort { $0.name < $1.name }
        entity.relationships.sort { $0.name < $1.name }
        entity.fetchedProperties.sort { $0.name < $1.name }
        // Entity-level `XDPMFetchRequest`s are the model's fetch request templates: WordPress-20-21's
        // copy of 21 has `UnreadNotes` on Notification, and 21's XML <fetchRequest name="UnreadNotes"
        // entity="Notification" predicateString="unread == 1"/>.
        let templates = try (settings.object("XD_PSK_fetchRequestsArray")?.members ?? [])
            .map { try XcodeThreeProperties.fetchRequest($0, owner: name) }
        return (entity, templates)
    }
}

/// Why an archive cannot be read, and where; becomes a ``ModelFileError`` naming the file.
struct XcodeThreeRefusal: Error {
    var element: String?
    var problem: String
    var fix: String

    init(element: String? = nil, problem: String, fix: String) {
        self.element = element
        self.problem = problem
        self.fix = fix
    }

    /// Runs `body`, naming `element` in what it throws (unless an inner call named a narrower
    /// one) and turning the archive's own failures into refusals.
    static func within<T>(_ element: String?, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let failure as KeyedArchive.Failure {
            throw XcodeThreeRefusal(
                element: element, problem: "the archive is damaged: \(failure.description)",
                fix: "restore the elements file from version control, or open the model in Xcode and save it again")
        } catch var refusal as XcodeThreeRefusal where refusal.element == nil {
            refusal.element = element
            throw refusal
        }
    }
}
