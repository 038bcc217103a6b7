/// A stored fetch request on an entity: Core Data's `NSFetchedPropertyDescription`.
///
/// Fetched properties are neither stored nor hashed; Chrysalis keeps them so a rewritten model
/// file still has them.
public struct FetchedPropertyDescription: PropertyKind, Hashable, Sendable {
    /// Name, optionality and the rest of the shared description.
    public var property: PropertyDescription
    /// The fetch request, as Xcode writes it inside the property.
    public var fetchRequest: FetchRequestTemplate

    /// A fetched property running `fetchRequest`.
    ///
    /// - Parameters:
    ///   - property: The name, optionality and the rest every property shares.
    ///   - fetchRequest: The fetch request the property runs.
    public init(_ property: PropertyDescription, fetchRequest: FetchRequestTemplate) {
        self.property = property
        self.fetchRequest = fetchRequest
    }
}

/// A named fetch request as Xcode stores it (`<fetchRequest name entity predicateString …/>`),
/// either inside a fetched property or as a model-level template.
public struct FetchRequestTemplate: Hashable, Sendable {
    /// The template's name.
    public var name: String
    /// The entity it fetches.
    public var entityName: String
    /// The predicate in Core Data's predicate syntax, if any.
    public var predicateString: String?
    /// Every other XML attribute (`fetchLimit`, `includeSubentities`, …), kept verbatim.
    public var otherXMLAttributes: [String: String]

    /// A template fetching `entityName`.
    ///
    /// - Parameters:
    ///   - name: The template's name.
    ///   - entityName: The entity it fetches.
    ///   - predicateString: Its predicate in Core Data's predicate syntax, if any.
    ///   - otherXMLAttributes: Every other XML attribute (`fetchLimit`, …), kept verbatim.
    public init(
        name: String, entityName: String, predicateString: String? = nil,
        otherXMLAttributes: [String: String] = [:]
    ) {
        self.name = name
        self.entityName = entityName
        self.predicateString = predicateString
        self.otherXMLAttributes = otherXMLAttributes
    }
}
