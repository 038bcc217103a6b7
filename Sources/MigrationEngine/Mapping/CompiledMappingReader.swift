import Foundation
import ObjectModel

/// Reads a compiled mapping model (`.cdm`): the keyed-archived `NSMappingModel` that Xcode's
/// mapping compiler writes into an app bundle, so a shipped app's mappings run without Xcode.
///
/// The archive names no model versions, only each mapped entity's version hash; the result's
/// versions are ``MappingModel/unresolvedVersion`` and its ``MappingModel/sourceEntityHashes`` and
/// ``MappingModel/destinationEntityHashes`` hold the hashes, which
/// ``MappingModel/resolvingVersions(in:)`` matches against a bundle. The compiler has already
/// filled in the default value expressions (`$source.<name>`, `destinationInstances…`); a
/// property mapping without one is left unset by Core Data, not inferred.
public enum CompiledMappingReader {
    /// The largest file read: a compiled mapping model is a few kilobytes to a few hundred.
    public static let maximumFileSize = 32 << 20

    /// What to do about an archive that cannot be used.
    static let recompile =
        """
        give a .cdm compiled by Xcode (it ships in the app bundle beside the .momd), or the .xcmappingmodel it was \
        compiled from
        """

    /// Reads the compiled mapping model at `url`.
    ///
    /// - Parameter url: The `.cdm` file.
    /// - Returns: The mapping model, its versions unresolved and its entity hashes kept.
    /// - Throws: A `MappingError` when the file is missing, a folder, too large, unreadable or not
    ///   a compiled mapping model.
    public static func read(at url: URL) throws -> MappingModel {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw MappingError(file: url.path, problem: "does not exist", fix: "give the path of a .cdm file")
        }
        guard !isDirectory.boolValue else {
            throw MappingError(
                file: url.path, problem: "is a folder, not a compiled mapping model",
                fix: "give the path of a .cdm file")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? 0
        guard size <= maximumFileSize else {
            throw MappingError(
                file: url.path,
                problem: "is \(size) bytes, more than any compiled mapping model (at most \(maximumFileSize))",
                fix: recompile)
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw MappingError(file: url.path, problem: "cannot be read", fix: "check the file's permissions")
        }
        return try read(data, file: url)
    }

    /// Reads the bytes of a `.cdm`; `file` names the mapping model and every error. Lets a caller
    /// read bytes it already holds (and tests feed damaged ones).
    ///
    /// - Parameters:
    ///   - data: The `.cdm`'s bytes.
    ///   - file: Where they came from, which names the mapping model and every error.
    /// - Returns: The mapping model, its versions unresolved and its entity hashes kept.
    /// - Throws: A `MappingError` when the bytes are not an archived `NSMappingModel` or a part of
    ///   it cannot be read.
    public static func read(_ data: Data, file: URL) throws -> MappingModel {
        let path = file.path
        let root: ArchivedObject
        let list: [ArchivedObject]
        do {
            root = try KeyedArchive(data: data).topObject()
            guard root.className == "NSMappingModel" else {
                throw MappingError(
                    file: path, problem: "holds a \(root.className ?? "nameless object"), not an NSMappingModel",
                    fix: recompile)
            }
            guard let mappings = try root.object("NSEntityMappings") else {
                throw Damage("the NSMappingModel has no NSEntityMappings")
            }
            list = try mappings.members
        } catch let error as MappingError {
            throw error
        } catch {
            throw MappingError(
                file: path, problem: "is not a readable compiled mapping model: \(error)", fix: recompile)
        }
        var hashes = Hashes()
        var mappings: [EntityMapping] = []
        for (index, object) in list.enumerated() {
            let place = "entity mapping \(index + 1)"
            do {
                let (mapping, source, destination) = try entityMapping(object, file: path)
                try hashes.record(source, of: mapping.sourceEntity, side: \.source)
                try hashes.record(destination, of: mapping.destinationEntity, side: \.destination)
                mappings.append(mapping)
            } catch let error as MappingError {
                throw error
            } catch {
                throw MappingError(file: path, place: place, problem: "\(error)", fix: recompile)
            }
        }
        return MappingModel(
            name: file.deletingPathExtension().lastPathComponent, sourceVersion: MappingModel.unresolvedVersion,
            destinationVersion: MappingModel.unresolvedVersion, entityMappings: mappings, file: path,
            sourceEntityHashes: hashes.source, destinationEntityHashes: hashes.destination)
    }

    /// Core Data's `NSEntityMappingType`: 0 undefined (derived from the rest), 1 custom, 2 add,
    /// 3 remove, 4 copy, 5 transform.
    private static let kinds: [Int: EntityMapping.Kind] = [1: .custom, 2: .add, 3: .remove, 4: .copy, 5: .transform]

    /// One `NSEntityMapping`, with its source and destination entity hashes.
    private static func entityMapping(_ object: ArchivedObject, file: String) throws -> (
        EntityMapping, source: Data?, destination: Data?
    ) {
        guard object.className == "NSEntityMapping" else {
            throw Damage("is a \(object.className ?? "nameless object"), not an NSEntityMapping")
        }
        guard let name = try object.string("NSMappingName"), !name.isEmpty else {
            throw Damage("has no NSMappingName")
        }
        let source = try object.string("NSSourceEntityName"), destination = try object.string("NSDestinationEntityName")
        let raw = object.integer("NSMappingType") ?? 0
        guard raw == 0 || kinds[raw] != nil else {
            throw Damage("\(name) has unknown NSMappingType \(raw) (Core Data's are 0 to 5)")
        }
        let kind = kinds[raw]
        try checkEntities(kind, source: source, destination: destination, name: name)
        let mapping = EntityMapping(
            name: name, kind: kind, source: source, destination: destination,
            filter: try filter(object, mapping: name, source: source, file: file),
            policyName: try object.string("NSEntityMigrationPolicyClassName"), userInfo: try userInfo(object),
            attributeMappings: try propertyMappings(object, "NSAttributeMappings", mapping: name, file: file),
            relationshipMappings: try propertyMappings(object, "NSRelationshipMappings", mapping: name, file: file))
        return (
            mapping, try hash(object, "NSSourceEntityVersionHash", entity: source, mapping: name),
            try hash(object, "NSDestinationEntityVersionHash", entity: destination, mapping: name)
        )
    }

    /// Refuses a kind the entities contradict (an add with no destination, a copy with one side
    /// missing), which no compiler writes and the engine must not be handed.
    private static func checkEntities(_ kind: EntityMapping.Kind?, source: String?, destination: String?, name: String)
        throws
    {
        let missing: String?
        switch kind {
        case .add?: missing = destination == nil ? "destination entity" : nil
        case .remove?: missing = source == nil ? "source entity" : nil
        case .copy?, .transform?: missing = source == nil || destination == nil ? "source or destination entity" : nil
        default: missing = source == nil && destination == nil ? "entity on either side" : nil
        }
        if let missing {
            throw Damage("\(name) is of kind \(kind.map(\.rawValue) ?? "undefined") but has no \(missing)")
        }
    }

    /// An entity's 32-byte version hash under `key`; required when the entity is named.
    private static func hash(_ object: ArchivedObject, _ key: String, entity: String?, mapping: String) throws -> Data?
    {
        guard entity != nil else { return nil }
        guard let hash = try object.object(key)?.plainValue as? Data else {
            throw Damage("\(mapping) has no \(key)")
        }
        guard hash.count == 32 else {
            throw Damage("\(mapping)'s \(key) is \(hash.count) bytes, not 32")
        }
        return hash
    }

    /// The filter predicate inside `NSSourceExpression`: a fetch-request expression whose request is
    /// `FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:", "<Entity>", "<predicate>")`.
    /// `TRUEPREDICATE` is no filter. Any other source expression (Xcode's custom source fetch)
    /// is refused: ignoring it would migrate other rows than the author meant.
    private static func filter(_ object: ArchivedObject, mapping: String, source: String?, file: String) throws
        -> Predicate?
    {
        guard let expression = try object.object("NSSourceExpression") else { return nil }
        let unsupported = MappingError(
            file: file, place: mapping, problem: "has a custom source fetch expression, which Chrysalis cannot run",
            fix: "use the default source fetch, with a filter predicate if needed, in Xcode's mapping editor")
        guard expression.integer("NSExpressionType") == 50, let request = try expression.object("NSFRExpression") else {
            throw unsupported
        }
        let requestText = try ArchivedExpression.format(request)
        guard
            case .function(.variable("manager"), "fetchRequestForSourceEntityNamed:predicateString:", let arguments)? =
                try? ExpressionParser.expression(
                    requestText),
            arguments.count == 2, case .constant(.string(let entity)) = arguments[0],
            case .constant(.string(let text)) = arguments[1]
        else {
            throw unsupported
        }
        guard entity == source else {
            throw MappingError(
                file: file, place: mapping,
                problem: "fetches \(entity) instances but maps \(source ?? "no source entity")",
                fix: recompile)
        }
        do {
            let predicate = try ExpressionParser.predicate(text)
            return predicate == .truePredicate ? nil : predicate
        } catch {
            throw MappingError(
                file: file, place: "\(mapping) filter", problem: "\(error)",
                fix: "correct the filter predicate in Xcode and recompile")
        }
    }

    /// The `NSPropertyMapping`s under `key`, in the archive's order.
    private static func propertyMappings(_ object: ArchivedObject, _ key: String, mapping: String, file: String) throws
        -> [PropertyMapping]
    {
        try (object.object(key)?.members ?? []).map { property in
            guard property.className == "NSPropertyMapping" else {
                throw Damage(
                    "\(mapping)'s \(key) holds a \(property.className ?? "nameless object"), not an NSPropertyMapping")
            }
            guard let name = try property.string("NSDestinationPropertyName"), !name.isEmpty else {
                throw Damage("a property mapping of \(mapping) has no NSDestinationPropertyName")
            }
            let info = try userInfo(property)
            guard let archived = try property.object("NSValueExpression") else {
                return PropertyMapping(name: name, expression: nil, userInfo: info)
            }
            let text: String
            do { text = try ArchivedExpression.format(archived) } catch {
                throw Damage("\(mapping).\(name): the value expression cannot be read: \(error)")
            }
            do {
                return PropertyMapping(
                    name: name, expression: try ExpressionParser.expression(text), userInfo: info, text: text)
            } catch {
                throw MappingError(
                    file: file, place: "\(mapping).\(name)", problem: "\(error)",
                    fix: "correct the value expression in Xcode and recompile")
            }
        }
    }

    /// The `NSUserInfo` dictionary, values as text (as ``XCMappingReader`` reads `userinfodata`).
    private static func userInfo(_ object: ArchivedObject) throws -> [String: String] {
        var result: [String: String] = [:]
        for (key, value) in try object.object("NSUserInfo")?.pairs ?? [] {
            if let key = key.stringValue { result[key] = value.stringValue ?? value.plainValue.map { "\($0)" } ?? "" }
        }
        return result
    }

    /// What is wrong with an archive that reads but is not a usable mapping model.
    private struct Damage: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// The entity hashes gathered from every entity mapping, one per entity and side.
    private struct Hashes {
        var source: [String: Data] = [:]
        var destination: [String: Data] = [:]

        /// Records `hash` for `entity`; two mappings of one entity must agree on its hash.
        mutating func record(_ hash: Data?, of entity: String?, side: WritableKeyPath<Hashes, [String: Data]>) throws {
            guard let entity, let hash else { return }
            if let known = self[keyPath: side][entity], known != hash {
                throw Damage("two entity mappings give \(entity) different version hashes")
            }
            self[keyPath: side][entity] = hash
        }
    }
}
