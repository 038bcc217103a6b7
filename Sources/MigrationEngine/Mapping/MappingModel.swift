import Foundation
import ObjectModel

/// How one destination property gets its value: Core Data's `NSPropertyMapping`.
public struct PropertyMapping: Hashable, Sendable {
    /// The destination property's name.
    public var name: String
    /// The value expression; `nil` leaves the property unset (its default).
    public var expression: Expression?
    /// Free-form key/value pairs.
    public var userInfo: [String: String]
    /// The expression as written, so errors can point at its columns.
    public var text: String?

    /// Whether the mapping just copies the source's property of the same name (or is inferred).
    public var copiesItsSource: Bool { expression == nil || expression == .sourceKey(name) }

    /// A mapping of `name` to `expression`.
    ///
    /// - Parameters:
    ///   - name: The destination property's name.
    ///   - expression: The value expression; `nil` leaves the property unset.
    ///   - userInfo: Free-form key/value pairs.
    ///   - text: The expression as written, so errors can point at its columns.
    public init(name: String, expression: Expression?, userInfo: [String: String] = [:], text: String? = nil) {
        self.name = name
        self.expression = expression
        self.userInfo = userInfo
        self.text = text
    }
}

/// How instances of one source entity become instances of one destination entity:
/// Core Data's `NSEntityMapping`.
public struct EntityMapping: Hashable, Sendable {
    /// Core Data's mapping types.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// New destination instances with no source (created by another mapping's policy).
        case add
        /// Source instances that have no destination.
        case remove
        /// The same entity, every property copied.
        case copy
        /// Values computed by expressions.
        case transform
        /// A custom migration policy does the work.
        case custom
    }

    /// The name value expressions refer to (`BookToBook`).
    public var name: String
    /// What kind of mapping it is.
    public var kind: Kind
    /// The source entity (`nil` for an add).
    public var sourceEntity: String?
    /// The destination entity (`nil` for a remove).
    public var destinationEntity: String?
    /// Only source instances matching this predicate are migrated.
    public var filter: Predicate?
    /// The registered name of a custom `EntityMigrationPolicy`.
    public var policyName: String?
    /// Free-form key/value pairs a policy can branch on (`modelVersion: "2"`).
    public var userInfo: [String: String]
    /// Attribute mappings.
    public var attributeMappings: [PropertyMapping]
    /// Relationship mappings.
    public var relationshipMappings: [PropertyMapping]

    /// Names that mean Core Data's own policy, not a custom one: none, or `NSEntityMigrationPolicy`
    /// itself, which Xcode writes in the Custom Policy field when one types the base class (the
    /// class every custom policy subclasses; Core Data runs it as the default).
    static let defaultPolicyNames: Set<String> = ["", "NSEntityMigrationPolicy", "CoreData.NSEntityMigrationPolicy"]

    /// An entity mapping; `name` defaults to `<Source>To<Destination>` (or the one entity's name).
    ///
    /// - Parameters:
    ///   - name: The name value expressions use; `nil` for Xcode's convention
    ///     (`conventionalName(source:destination:)`).
    ///   - kind: The mapping type; `nil` to derive it from the entities, the policy and the
    ///     attribute mappings.
    ///   - source: The source entity; `nil` for an add.
    ///   - destination: The destination entity; `nil` for a remove.
    ///   - filter: Only source instances matching it are migrated; `nil` for all.
    ///   - policyName: The registered name of a custom policy; `nil`, or `NSEntityMigrationPolicy`,
    ///     for Core Data's own.
    ///   - userInfo: Free-form key/value pairs a policy can branch on.
    ///   - attributeMappings: The attribute mappings.
    ///   - relationshipMappings: The relationship mappings.
    public init(
        name: String? = nil, kind: Kind? = nil, source: String?, destination: String?, filter: Predicate? = nil,
        policyName: String? = nil, userInfo: [String: String] = [:], attributeMappings: [PropertyMapping] = [],
        relationshipMappings: [PropertyMapping] = []
    ) {
        self.name = name ?? Self.conventionalName(source: source, destination: destination)
        self.sourceEntity = source
        self.destinationEntity = destination
        self.filter = filter
        self.policyName = policyName.flatMap { Self.defaultPolicyNames.contains($0) ? nil : $0 }
        self.userInfo = userInfo
        self.attributeMappings = attributeMappings
        self.relationshipMappings = relationshipMappings
        self.kind =
            kind
            ?? Self.derivedKind(
                source: source, destination: destination, policy: self.policyName,
                transforms: attributeMappings.contains { !$0.copiesItsSource })
    }

    /// Xcode's convention: `SourceToDestination`, or the entity's name for adds and removes.
    ///
    /// - Parameters:
    ///   - source: The source entity, if any.
    ///   - destination: The destination entity, if any.
    /// - Returns: `<Source>To<Destination>`, the one entity's name, or `Unnamed` when there is
    ///   neither.
    public static func conventionalName(source: String?, destination: String?) -> String {
        switch (source, destination) {
        case let (source?, destination?): return "\(source)To\(destination)"
        case let (nil, destination?): return destination
        case let (source?, nil): return source
        default: return "Unnamed"
        }
    }

    private static func derivedKind(source: String?, destination: String?, policy: String?, transforms: Bool) -> Kind {
        if source == nil { return .add }
        if destination == nil { return .remove }
        if policy != nil { return .custom }
        return source == destination && !transforms ? .copy : .transform
    }

    /// Every property mapping, attributes first.
    public var propertyMappings: [PropertyMapping] { attributeMappings + relationshipMappings }
}

/// How a store moves from one model version to the next: Core Data's `NSMappingModel`.
public struct MappingModel: Hashable, Sendable {
    /// The mapping's name (its file name without extension).
    public var name: String
    /// The source model version's name.
    public var sourceVersion: String
    /// The destination model version's name.
    public var destinationVersion: String
    /// Entity mappings in execution order.
    public var entityMappings: [EntityMapping]
    /// The file it was read from, for error messages.
    public var file: String?
    /// Each mapped source entity's 32-byte version hash, by entity name, as a compiled mapping
    /// model (`.cdm`) stores them; `nil` for formats that name their versions instead. A `.cdm`
    /// names no versions, so these are what ``resolvingVersions(in:)`` matches.
    public var sourceEntityHashes: [String: Data]?
    /// Each mapped destination entity's version hash, by entity name (see ``sourceEntityHashes``).
    public var destinationEntityHashes: [String: Data]?

    /// A mapping model.
    ///
    /// - Parameters:
    ///   - name: The mapping's name.
    ///   - sourceVersion: The source model version's name.
    ///   - destinationVersion: The destination model version's name.
    ///   - entityMappings: The entity mappings, in execution order.
    ///   - file: The file it was read from, for error messages.
    ///   - sourceEntityHashes: The mapped source entities' version hashes, for a `.cdm`.
    ///   - destinationEntityHashes: The mapped destination entities' version hashes, for a `.cdm`.
    public init(
        name: String, sourceVersion: String, destinationVersion: String, entityMappings: [EntityMapping],
        file: String? = nil,
        sourceEntityHashes: [String: Data]? = nil, destinationEntityHashes: [String: Data]? = nil
    ) {
        self.name = name
        self.sourceVersion = sourceVersion
        self.destinationVersion = destinationVersion
        self.entityMappings = entityMappings
        self.file = file
        self.sourceEntityHashes = sourceEntityHashes
        self.destinationEntityHashes = destinationEntityHashes
    }

    /// The entity mapping called `name`.
    ///
    /// - Parameter name: The entity mapping's name.
    /// - Returns: The entity mapping, or `nil` when there is none of that name.
    public func entityMapping(named name: String) -> EntityMapping? {
        entityMappings.first { $0.name == name }
    }
}

/// Naming a compiled mapping model's versions: Core Data picks a `.cdm` for a pair of models by
/// comparing the entity version hashes it stores with the models' own, and so does Chrysalis.
extension MappingModel {
    /// The source and destination version name of a mapping read from a `.cdm`, until
    /// ``resolvingVersions(in:)`` names them: the archive holds entity hashes, not version names.
    public static let unresolvedVersion = ""

    /// Whether the mapping was read from a compiled `.cdm`: its versions unnamed until
    /// ``resolvingVersions(in:)`` names them, and what the compiler left unset is its verdict.
    public var isCompiled: Bool { sourceVersion == Self.unresolvedVersion }

    /// The mapping with `sourceVersion` and `destinationVersion` set to the versions of `bundle`
    /// whose entity hashes fit the stored ones, or `nil` when none does (or several fit equally);
    /// a plan can then use a compiled mapping model like one that names its versions. A mapping
    /// without stored hashes is returned as it is when `bundle` has both its versions.
    ///
    /// - Parameter bundle: The model bundle whose versions to match.
    /// - Returns: The mapping with its versions named, or `nil` when no single version pair fits.
    public func resolvingVersions(in bundle: ModelBundle) -> MappingModel? {
        // Each version's hashes were worked out when it was read: hashing a 109-version bundle
        // again per mapping model made every WordPress plan pay for it once per mapping model
        // (`WordPressPoliciesTests` plans with WordPress's).
        resolvingVersions(among: bundle.versions.map { (name: $0.name, hashes: $0.entityHashes) })
    }

    /// ``resolvingVersions(in:)`` given each version's entity hashes by name, in version order;
    /// a `.momd` without its `.mom` files (only `VersionInfo.plist`'s hashes) is enough for this.
    ///
    /// - Parameter versions: Each version's name and entity hashes, in version order.
    /// - Returns: The mapping with its versions named, or `nil` when no single version pair fits.
    public func resolvingVersions(among versions: [(name: String, hashes: [String: Data])]) -> MappingModel? {
        guard let sourceEntityHashes, let destinationEntityHashes else {
            let names = Set(versions.map(\.name))
            return names.contains(sourceVersion) && names.contains(destinationVersion) ? self : nil
        }
        guard let source = Self.version(fitting: sourceEntityHashes, among: versions, named: sourceVersion),
            let destination = Self.version(fitting: destinationEntityHashes, among: versions, named: destinationVersion)
        else { return nil }
        var named = self
        named.sourceVersion = source
        named.destinationVersion = destination
        return named
    }

    /// Core Data's rule: a version fits when each stored entity's hash equals that version's
    /// hash of the entity. The version the mapping model names wins if it fits (an Xcode mapping
    /// model names its versions; several fit when the entities it maps are the same in each), then
    /// a version whose hashes are exactly the stored ones, then the only version that fits.
    private static func version(
        fitting stored: [String: Data], among versions: [(name: String, hashes: [String: Data])], named: String
    ) -> String? {
        let fitting = versions.filter { version in stored.allSatisfy { version.hashes[$0.key] == $0.value } }
        if let same = fitting.first(where: { $0.name == named }) { return same.name }
        if let exact = fitting.first(where: { $0.hashes == stored }) { return exact.name }
        return fitting.count == 1 ? fitting[0].name : nil
    }
}

/// A mapping file or mapping model Chrysalis cannot use: the same one-line, compiler-style error
/// as a model file's (file, line, the entity mapping or property at fault, the problem, the fix).
public typealias MappingError = ModelFileError

extension ModelFileError {
    /// An error in a mapping file; `place` names the entity mapping or property (`BookToBook.price`).
    ///
    /// - Parameters:
    ///   - file: The mapping file.
    ///   - line: The 1-based line, when known.
    ///   - place: The entity mapping or property at fault, if any.
    ///   - problem: What is wrong.
    ///   - fix: How to put it right, when there is something to suggest.
    public init(file: String, line: Int? = nil, place: String?, problem: String, fix: String? = nil) {
        self.init(file: file, line: line, element: place, problem: problem, fix: fix)
    }
}
