/// An object as read from a store: its ID, concrete entity, attribute values and to-one
/// destinations.
public struct StoredObject: Hashable, Sendable {
    /// Entity number and `Z_PK`.
    public var id: ObjectID
    /// The concrete entity's name.
    public var entity: String
    /// `Z_OPT`: how many times the object was saved.
    public var version: Int64
    /// Every stored attribute (inherited ones included), `.null` when unset.
    public var values: [String: StoreValue]
    /// Every to-one relationship that is set.
    public var toOne: [String: ObjectID]
}
