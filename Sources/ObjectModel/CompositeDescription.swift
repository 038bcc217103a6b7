/// A composite type (`<composite name="…">`, iOS 17's `NSCompositeAttributeDescription`): a named
/// group of attributes that an attribute of type `Composite` holds as one value.
///
/// Kept so a model that has one reads and writes back whole. How Core Data lays a composite out
/// in a store and folds it into a version hash is not documented and no fixture store shows it,
/// so a version with a composite attribute is read, and Chrysalis says it cannot make or migrate
/// stores at that version (``ManagedObjectModel/problems()``).
public struct CompositeDescription: Hashable, Sendable {
    /// The composite's name, which an attribute names in `composite="…"`.
    public var name: String
    /// Its elements, in file order (an element may itself be a composite).
    public var attributes: [AttributeDescription]

    /// A composite called `name` holding `attributes`.
    ///
    /// - Parameters:
    ///   - name: The composite's name, which attributes name in `composite="…"`.
    ///   - attributes: Its elements, in file order.
    public init(name: String, attributes: [AttributeDescription] = []) {
        self.name = name
        self.attributes = attributes
    }
}
