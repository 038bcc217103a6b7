/// One version of a data model: Core Data's `NSManagedObjectModel`, with inheritance resolved
/// on demand (entities store only what they declare, as in Xcode's files).
public struct ManagedObjectModel: Hashable, Sendable {
    /// Entities in file order.
    public var entities: [EntityDescription] { didSet { positions = Self.positions(of: entities) } }
    /// Entity name → position in ``entities`` (the first, if a bad model repeats a name): models
    /// are asked for entities by name on every path, and a real app's has dozens.
    private var positions: [String: Int]
    /// Named entity subsets; the implicit `Default` configuration is not listed.
    public var configurations: [Configuration]
    /// Model-level fetch request templates.
    public var fetchRequestTemplates: [FetchRequestTemplate]
    /// Composite types that `Composite` attributes name (iOS 17).
    public var composites: [CompositeDescription]
    /// Core Data's `versionIdentifiers`, as a store records them in
    /// `NSStoreModelVersionIdentifiers`: Xcode's `userDefinedModelVersionIdentifier` (`[""]` when
    /// the field is empty); `[]` for a model built in code.
    public var versionIdentifiers: [String]
    /// Informative attributes of the `<model>` element (`lastSavedToolsVersion`,
    /// `systemVersion`, `minimumToolsVersion`, `sourceLanguage`, …), kept for rewriting.
    public var documentAttributes: [String: String]

    /// A model of `entities`.
    ///
    /// - Parameters:
    ///   - entities: The entities, in file order.
    ///   - configurations: Named entity subsets, `Default` left out.
    ///   - fetchRequestTemplates: Model-level fetch request templates.
    ///   - composites: The composite types that `Composite` attributes name.
    ///   - versionIdentifiers: Core Data's `versionIdentifiers`; `[""]` when Xcode's field is
    ///     empty.
    ///   - documentAttributes: Informative attributes of the `<model>` element, kept for rewriting.
    public init(
        entities: [EntityDescription], configurations: [Configuration] = [],
        fetchRequestTemplates: [FetchRequestTemplate] = [], composites: [CompositeDescription] = [],
        versionIdentifiers: [String] = [""], documentAttributes: [String: String] = [:]
    ) {
        self.entities = entities
        positions = Self.positions(of: entities)
        self.configurations = configurations
        self.fetchRequestTemplates = fetchRequestTemplates
        self.composites = composites
        self.versionIdentifiers = versionIdentifiers
        self.documentAttributes = documentAttributes
    }

    /// The entity called `name`, if the model has one.
    ///
    /// - Parameter name: The entity's name.
    /// - Returns: The entity, the first of that name if a bad model repeats it; `nil` when there is
    ///   none.
    public func entity(named name: String) -> EntityDescription? {
        positions[name].map { entities[$0] }
    }

    private static func positions(of entities: [EntityDescription]) -> [String: Int] {
        Dictionary(entities.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The chain of superentities of `entity`, nearest first. Stops at a missing parent or a
    /// cycle (both reported by ``problems()``), so it is safe on unvalidated models.
    ///
    /// - Parameter entity: An entity of this model.
    /// - Returns: Its superentities, nearest first; empty for a root entity.
    public func ancestors(of entity: EntityDescription) -> [EntityDescription] {
        var chain: [EntityDescription] = []
        var seen: Set<String> = [entity.name]
        var next = entity.parentName
        while let name = next, !seen.contains(name), let parent = self.entity(named: name) {
            chain.append(parent)
            seen.insert(name)
            next = parent.parentName
        }
        return chain
    }

    /// The entities whose parent is `entity`, in file order.
    ///
    /// - Parameter entity: An entity of this model.
    /// - Returns: Its direct subentities, in file order.
    public func subentities(of entity: EntityDescription) -> [EntityDescription] {
        entities.filter { $0.parentName == entity.name }
    }

    /// The top of `entity`'s hierarchy: the entity whose table holds its rows.
    ///
    /// - Parameter entity: An entity of this model.
    /// - Returns: Its farthest ancestor, or `entity` itself when it has no parent.
    public func rootEntity(of entity: EntityDescription) -> EntityDescription {
        ancestors(of: entity).last ?? entity
    }

    /// Every attribute of `entity`, inherited ones first (root's first), then its own.
    ///
    /// - Parameter entity: An entity of this model.
    /// - Returns: Its attributes, inherited and declared.
    public func allAttributes(of entity: EntityDescription) -> [AttributeDescription] {
        inheritanceLine(of: entity).flatMap(\.attributes)
    }

    /// Every relationship of `entity`, inherited ones first, then its own.
    ///
    /// - Parameter entity: An entity of this model.
    /// - Returns: Its relationships, inherited and declared.
    public func allRelationships(of entity: EntityDescription) -> [RelationshipDescription] {
        inheritanceLine(of: entity).flatMap(\.relationships)
    }

    /// The relationship `name` as seen from `entity` (declared or inherited); where a bad model
    /// declares the name twice in one line, the root-most declaration, as ``allRelationships(of:)``
    /// lists it first.
    ///
    /// Asked once per relationship per row by a migration, so it walks the line in place rather
    /// than building ``allRelationships(of:)`` (a tenth of a policy-heavy step's time went there).
    ///
    /// - Parameters:
    ///   - name: The relationship's name.
    ///   - entity: The entity it is seen from.
    /// - Returns: The relationship, or `nil` when neither `entity` nor its ancestors declare it.
    public func relationship(named name: String, in entity: EntityDescription) -> RelationshipDescription? {
        var found = entity.relationships.first { $0.name == name }
        var next = entity.parentName
        var seen = [entity.name]
        // The walk ``ancestors(of:)`` makes: a name met again (a cycle, reported by problems()) ends it.
        while let parentName = next, !seen.contains(parentName), let parent = self.entity(named: parentName) {
            if let declared = parent.relationships.first(where: { $0.name == name }) { found = declared }
            seen.append(parentName)
            next = parent.parentName
        }
        return found
    }

    /// The root of the hierarchy first, `entity` last.
    private func inheritanceLine(of entity: EntityDescription) -> [EntityDescription] {
        ancestors(of: entity).reversed() + [entity]
    }
}
