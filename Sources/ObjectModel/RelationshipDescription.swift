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
    ///
    /// - Parameters:
    ///   - property: The name, optionality and the rest every property shares.
    ///   - destination: The entity the relationship points to.
    ///   - inverse: The relationship on the destination that points back, if any.
    ///   - inverseEntity: The entity declaring the inverse; the destination when `nil` and there is
    ///     an inverse.
    ///   - isToMany: Whether it is to-many.
    ///   - isOrdered: Whether a to-many is ordered.
    ///   - minCount: The least number of destinations.
    ///   - maxCount: The most; `nil` for 1 on a to-one, 0 (unbounded) on a to-many.
    ///   - deleteRule: What deleting the source does to the destination.
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
