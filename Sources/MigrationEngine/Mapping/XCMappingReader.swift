import Foundation
import ObjectModel

/// Reads Xcode's `.xcmappingmodel/xcmapping.xml`: a Core Data XML store of the mapping editor's
/// `XDDEV*` objects. Only the mapping model's live entity mappings count (the editor keeps
/// orphans), in `mappingnumber` order; value expressions are keyed-archived `NSExpression`s.
public enum XCMappingReader {
    /// Reads the mapping model in the `.xcmappingmodel` folder (or its `xcmapping.xml`) at `url`.
    ///
    /// - Parameter url: The `.xcmappingmodel` folder, or its `xcmapping.xml`.
    /// - Returns: The mapping model.
    /// - Throws: A `MappingError` when `xcmapping.xml` cannot be read or is not a mapping model.
    public static func read(at url: URL) throws -> MappingModel {
        var info = stat()
        if url.lastPathComponent != "xcmapping.xml", stat(url.path, &info) == 0, info.st_mode & S_IFMT != S_IFDIR {
            throw MappingError(
                file: url.path,
                problem:
                    "is \(InputFile.kind(of: info.st_mode) ?? "a file"), not an .xcmappingmodel folder or a mapping file",
                fix: "give the path of an .xcmappingmodel folder or a Name.mapping.yaml file")
        }
        let file = url.lastPathComponent == "xcmapping.xml" ? url : url.appendingPathComponent("xcmapping.xml")
        let data = try InputFile.read(
            file, what: "a mapping model's xcmapping.xml", fix: "give the path of an .xcmappingmodel folder")
        return try read(data, file: file)
    }

    /// Reads the contents of an `xcmapping.xml`; `file` is where they came from, which names the
    /// mapping model (its folder) and every error. Lets a caller read bytes it already holds.
    ///
    /// - Parameters:
    ///   - data: The contents of an `xcmapping.xml`.
    ///   - file: Where they came from, which names the mapping model and every error.
    /// - Returns: The mapping model.
    /// - Throws: A `MappingError` with the line, when the XML is malformed or is not a mapping
    ///   model.
    public static func read(_ data: Data, file: URL) throws -> MappingModel {
        let bundle = file.deletingLastPathComponent()
        let root: XMLTree
        do { root = try XMLTree.parse(data, file: file.path) } catch let error as ModelFileError {
            throw MappingError(file: file.path, line: error.line, problem: error.problem, fix: error.fix)
        }
        let store = try Objects(root, file: file.path)
        let live = store.related(store.model, "entitymappings").sorted {
            (Int(store.attribute($0, "mappingnumber") ?? "") ?? .max)
                < (Int(store.attribute($1, "mappingnumber") ?? "") ?? .max)
        }
        let entityMappings = try live.map(store.entityMapping)
        return MappingModel(
            name: bundle.deletingPathExtension().lastPathComponent, sourceVersion: try store.version("sourcemodelpath"),
            destinationVersion: try store.version("destinationmodelpath"),
            entityMappings: entityMappings, file: bundle.path,
            sourceEntityHashes: store.embeddedHashes("sourcemodeldata", of: entityMappings.compactMap(\.sourceEntity)),
            destinationEntityHashes: store.embeddedHashes(
                "destinationmodeldata", of: entityMappings.compactMap(\.destinationEntity)))
    }

    /// The XML store's objects by ID, and how to read their attributes and relationships.
    private struct Objects {
        let file: String
        let byID: [String: XMLTree]
        /// The `XDDEVMAPPINGMODEL` object.
        let model: XMLTree

        init(_ root: XMLTree, file: String) throws {
            self.file = file
            var objects: [String: XMLTree] = [:]
            for object in root.children(named: "object") {
                if let id = object.attributes["id"] { objects[id] = object }
            }
            byID = objects
            guard root.name == "database",
                let model = objects.values.first(where: { $0.attributes["type"] == "XDDEVMAPPINGMODEL" })
            else {
                throw MappingError(
                    file: file, problem: "is not an Xcode mapping model (no XDDEVMAPPINGMODEL object)",
                    fix: "give the path of an .xcmappingmodel folder written by Xcode")
            }
            self.model = model
        }

        func attribute(_ object: XMLTree, _ name: String) -> String? {
            object.children(named: "attribute").first(where: { $0.attributes["name"] == name }).map {
                XCMappingReader.unescaped($0.text)
            }
        }

        func related(_ object: XMLTree, _ name: String) -> [XMLTree] {
            let ids =
                object.children(named: "relationship").first { $0.attributes["name"] == name }?.attributes["idrefs"]
                ?? ""
            return ids.split(separator: " ").compactMap { byID[String($0)] }
        }

        /// The version hashes of `entities` in the model Xcode keeps inside the mapping model under
        /// `key` (`sourcemodeldata`, `destinationmodeldata`: an Xcode 3 `elements` archive of the
        /// model as it was when the mapping was made or last refreshed). Core Data finds a mapping
        /// model by these, never by a version's name or path: the compiled mapping model carries
        /// each entity mapping's hashes (`NSEntityMapping.sourceEntityVersionHash`), and "Refresh
        /// Data Models" is the fix for a model edited after its mapping. VLC's `2.5 → 2.6` names a
        /// version that was renamed since (`MediaLibrary-2.5.2`) and fits `MediaLibrary-2.6` by its
        /// hashes. `nil` when the mapping model holds no such model, it cannot be read, or no entity
        /// is mapped: then the versions are found by name.
        func embeddedHashes(_ key: String, of entities: [String]) -> [String: Data]? {
            guard let encoded = attribute(model, key),
                let data = Data(base64Encoded: encoded, options: .ignoreUnknownCharacters),
                let embedded = try? XcodeThreeModelReader.read(data, file: "\(file) (\(key))")
            else { return nil }
            let wanted = Set(entities)
            let hashes = VersionHash.entityHashes(of: embedded).filter { wanted.contains($0.key) }
            return hashes.isEmpty ? nil : hashes
        }

        /// The name of the model version at the mapping model's `key` path.
        func version(_ key: String) throws -> String {
            guard let path = attribute(model, key), !path.isEmpty else {
                throw MappingError(
                    file: file, line: model.line, problem: "the mapping model has no \(key)", fix: "re-save it in Xcode"
                )
            }
            return URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        }

        /// One live `XDDEVENTITYMAPPING` object as an entity mapping.
        func entityMapping(_ object: XMLTree) throws -> EntityMapping {
            let place =
                """
                entity mapping \
                \(attribute(object, "sourcename") ?? "?")→\(attribute(object, "destinationname") ?? "?")
                """
            func properties(_ key: String) throws -> [PropertyMapping] {
                try related(object, key).map { try propertyMapping($0, attribute: attribute, file: file, place: place) }
                    .sorted { $0.name < $1.name }
            }
            var userInfo: [String: String] = [:]
            if let encoded = attribute(object, "userinfodata") {
                userInfo = try archivedDictionary(encoded, file: file, line: object.line)
            }
            return EntityMapping(
                name: attribute(object, "name").flatMap { $0.isEmpty ? nil : $0 },
                source: attribute(object, "sourcename"), destination: attribute(object, "destinationname"),
                filter: try attribute(object, "sourcefilterpredicatestring").map { text in
                    do { return try ExpressionParser.predicate(text) } catch {
                        throw MappingError(
                            file: file, line: object.line, place: place, problem: "filter predicate: \(error)")
                    }
                },
                policyName: attribute(object, "migrationpolicyclassname"), userInfo: userInfo,
                attributeMappings: try properties("attributemappings"),
                relationshipMappings: try properties("relationshipmappings"))
        }
    }

    private static func propertyMapping(
        _ object: XMLTree, attribute: (XMLTree, String) -> String?, file: String, place: String
    ) throws -> PropertyMapping {
        let name = attribute(object, "name") ?? ""
        var text: String?
        if let encoded = attribute(object, "valueexpressiondata") {
            guard let data = Data(base64Encoded: encoded, options: .ignoreUnknownCharacters) else {
                throw MappingError(
                    file: file, line: object.line, place: "\(place).\(name)",
                    problem: "valueexpressiondata is not base64")
            }
            do {
                text = try ArchivedExpression.format(try KeyedArchive(data: data).topObject())
            } catch {
                throw MappingError(
                    file: file, line: object.line, place: "\(place).\(name)",
                    problem: "the archived value expression cannot be read: \(error)")
            }
        } else if let keyPath = attribute(object, "sourcekeypath"), let target = attribute(object, "sourcemappingname")
        {
            text =
                """
                FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"\(target)\", \
                \(keyPath))
                """
        }
        do {
            return PropertyMapping(name: name, expression: try text.map(ExpressionParser.expression), text: text)
        } catch {
            throw MappingError(
                file: file, line: object.line, place: "\(place).\(name)", problem: "\(error)",
                fix: "correct the value expression in Xcode")
        }
    }

    /// The text of an XML store attribute: Xcode writes some characters as `\u` and four hex
    /// digits of the UTF-16 unit with its two bytes swapped (Mioke's CoreDataMigrationHelper:
    /// `messageID \u3c00 10000` is `messageID < 10000`; read the other way it would be U+3C00,
    /// a CJK ideograph, in the middle of a comparison).
    static func unescaped(_ text: String) -> String {
        guard text.contains("\\u") else { return text }
        let units = Array(text.utf16)
        var result: [UInt16] = []
        var index = 0
        while index < units.count {
            let digits = units.dropFirst(index + 2).prefix(4)
            if units[index] == 0x5C, index + 1 < units.count, units[index + 1] == 0x75, digits.count == 4,
                digits.allSatisfy({ $0 < 0x80 && Character(Unicode.Scalar(UInt8($0))).isHexDigit }),
                let value = UInt16(String(decoding: digits, as: UTF16.self), radix: 16)
            {
                result.append(value.byteSwapped)
                index += 6
            } else {
                result.append(units[index])
                index += 1
            }
        }
        return String(decoding: result, as: UTF16.self)
    }

    private static func archivedDictionary(_ encoded: String, file: String, line: Int) throws -> [String: String] {
        guard let data = Data(base64Encoded: encoded, options: .ignoreUnknownCharacters) else {
            throw MappingError(file: file, line: line, problem: "userinfodata is not base64")
        }
        do {
            var result: [String: String] = [:]
            for (key, value) in try KeyedArchive(data: data).topObject().pairs {
                if let key = key.stringValue {
                    result[key] = value.stringValue ?? value.plainValue.map { "\($0)" } ?? ""
                }
            }
            return result
        } catch {
            throw MappingError(file: file, line: line, problem: "userinfodata cannot be read: \(error)")
        }
    }
}
