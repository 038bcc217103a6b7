/// A link from an entity to another: Core Data's `NSRelationshipDescription`.
public struct RelationshipDescription: PropertyKind, Hashable, Sendable {
    /// What Core Data does with the destination when the source object is deleted.
    public enum DeleteRule: String, CaseIterable, Hashable, Sendable, Codable {
        case noAction = "No Action"
        case nullify = "Nullify"
        case cascade = "Cascade"
        case deny = "Deny"
    }

    /// Name, optionality, transience, renaming identifier, hash modifier, user info.
    public var property: PropertyDescription
    /// The entity the relationship points to; part of the version hash.
    public var destinationEntityName: String
    /// The relationship on the destination that points back, if any; part of the version hash.
    public var inverseName: String?
    /// The entity declaring the inverse (Xcode's `inverseEntity`); usually the destination.
    public var inverseEntityName: String?
    /// To-many (`toMany="YES"`) or to-one.
    public var isToMany: Bool
    /// An ordered to-many (`NSOrderedSet`); part of the version hash.
    public var isOrdered: Bool
    /// Lower bound on the number of destinations, as written; part of the version hash.
    public var minCount: Int
    /// Upper bound, as written; 0 means unbounded; to-one is 1. Part of the version hash.
    public var maxCount: Int
    /// Delete rule; not hashed.
    public var deleteRule: DeleteRule

    /// A relationship with Core Data's defaults: to-one (max 1) unless `isToMany`, then unbounded.
    public init(
        _ property: PropertyDescription, destination: String, inverse: String? = nil,
        inverseEntity: String? = nil, isToMany: Bool = false, isOrdered: Bool = false,
        minCount: Int = 0, maxCount: Int? = nil, deleteRule: DeleteRule = .nullify
    ) {
        self.property = property
        self.destinationEntityName = destination
        self.inverseName = inverse
        self.inverseEntityName = inverse == nil ? nil : (inverseEntity ?? destination)
        self.isToMany = isToMany
        self.isOrdered = isOrdered
        self.minCount = minCount
        self.maxCount = maxCount ?? (isToMany ? 0 : 1)
        self.deleteRule = deleteRule
    }
}
