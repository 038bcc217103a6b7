/// A kind of object in a model: Core Data's `NSEntityDescription`, with the properties it
/// declares itself (inherited ones are resolved by ``ManagedObjectModel``).
public struct EntityDescription: Hashable, Sendable {
    /// The entity's name; also the basis of its SQL table name.
    public var name: String
    /// The class the entity's objects use in app code; never hashed.
    public var representedClassName: String?
    /// The superentity's name, for inheritance (single-table in the store).
    public var parentName: String?
    /// Abstract entities have no instances of their own; part of the version hash.
    public var isAbstract: Bool
    /// The renaming identifier (`elementID`) used to infer an entity rename across versions.
    public var renamingIdentifier: String?
    /// An extra string folded into the version hash.
    public var versionHashModifier: String?
    /// Declared attributes, in file order.
    public var attributes: [AttributeDescription]
    /// Declared relationships, in file order.
    public var relationships: [RelationshipDescription]
    /// Declared fetched properties (never stored, never hashed).
    public var fetchedProperties: [FetchedPropertyDescription]
    /// Each constraint is a list of property names whose values together must be unique;
    /// part of the version hash.
    public var uniquenessConstraints: [[String]]
    /// Xcode 9+ fetch indexes (`<fetchIndex>`).
    public var fetchIndexes: [FetchIndex]
    /// Older compound indexes (`<compoundIndexes>`), each a list of property names.
    public var compoundIndexes: [[String]]
    /// Free-form key/value pairs from the model editor; never hashed.
    public var userInfo: [String: String]
    /// XML attributes Chrysalis does not interpret (`codeGenerationType`, `syncable`, …), kept
    /// so a rewritten model file loses nothing.
    public var otherXMLAttributes: [String: String]

    /// An entity with no properties unless given.
    ///
    /// - Parameters:
    ///   - name: The entity's name.
    ///   - representedClassName: The class its objects use in app code.
    ///   - parentName: The superentity's name, if it inherits.
    ///   - isAbstract: Whether it has no instances of its own.
    ///   - renamingIdentifier: The renaming identifier that infers a rename across versions.
    ///   - versionHashModifier: An extra string folded into its version hash.
    ///   - attributes: The attributes it declares, in file order.
    ///   - relationships: The relationships it declares, in file order.
    ///   - fetchedProperties: The fetched properties it declares.
    ///   - uniquenessConstraints: Lists of property names whose values together must be unique.
    ///   - fetchIndexes: Its fetch indexes.
    ///   - compoundIndexes: Its older compound indexes, each a list of property names.
    ///   - userInfo: The model editor's key/value pairs.
    ///   - otherXMLAttributes: XML attributes Chrysalis does not interpret, kept verbatim.
    public init(
        name: String, representedClassName: String? = nil, parentName: String? = nil,
        isAbstract: Bool = false, renamingIdentifier: String? = nil, versionHashModifier: String? = nil,
        attributes: [AttributeDescription] = [], relationships: [RelationshipDescription] = [],
        fetchedProperties: [FetchedPropertyDescription] = [], uniquenessConstraints: [[String]] = [],
        fetchIndexes: [FetchIndex] = [], compoundIndexes: [[String]] = [],
        userInfo: [String: String] = [:], otherXMLAttributes: [String: String] = [:]
    ) {
        self.name = name
        self.representedClassName = representedClassName
        self.parentName = parentName
        self.isAbstract = isAbstract
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.attributes = attributes
        self.relationships = relationships
        self.fetchedProperties = fetchedProperties
        self.uniquenessConstraints = uniquenessConstraints
        self.fetchIndexes = fetchIndexes
        self.compoundIndexes = compoundIndexes
        self.userInfo = userInfo
        self.otherXMLAttributes = otherXMLAttributes
    }

    /// The name that identifies this entity across versions (renaming identifier, else name).
    public var canonicalName: String { renamingIdentifier ?? name }

    /// The names of every property declared here, of every kind.
    public var declaredPropertyNames: [String] {
        attributes.map(\.name) + relationships.map(\.name) + fetchedProperties.map(\.name)
    }
}

/// An index Core Data creates in the store for faster fetches (`<fetchIndex>`).
public struct FetchIndex: Hashable, Sendable {
    /// One indexed property with its kind and direction.
    public struct Element: Hashable, Sendable {
        /// The indexed property's name.
        public var property: String
        /// `Binary` (a B-tree) or `RTree`.
        public var type: String
        /// Ascending unless `order="descending"`.
        public var isAscending: Bool

        /// An index element on `property`.
        ///
        /// - Parameters:
        ///   - property: The indexed property's name.
        ///   - type: `Binary` (a B-tree) or `RTree`.
        ///   - isAscending: Whether the index is ascending.
        public init(property: String, type: String = "Binary", isAscending: Bool = true) {
            self.property = property
            self.type = type
            self.isAscending = isAscending
        }
    }

    /// The index name Xcode shows (`byMakerIndex`).
    public var name: String
    /// The indexed properties, in order.
    public var elements: [Element]

    /// An index named `name` over `elements`.
    ///
    /// - Parameters:
    ///   - name: The index name.
    ///   - elements: The indexed properties, in order.
    public init(name: String, elements: [Element]) {
        self.name = name
        self.elements = elements
    }
}
