/// What every kind of property shares (Core Data's `NSPropertyDescription`): the inputs of the
/// property version hash plus the bookkeeping Xcode keeps beside them.
public struct PropertyDescription: Hashable, Sendable {
    /// The property's name, unique within its entity and its ancestors.
    public var name: String
    /// Whether a nil value is allowed; Xcode writes `optional="YES"`.
    public var isOptional: Bool
    /// Transient properties are not stored and do not count in the entity's version hash.
    public var isTransient: Bool
    /// Read-only properties (derived attributes) hash differently from writable ones.
    public var isReadOnly: Bool
    /// The renaming identifier (Xcode's "Renaming ID", `elementID`) used to infer renames.
    public var renamingIdentifier: String?
    /// An extra string folded into the version hash to force a new hash without a schema change.
    public var versionHashModifier: String?
    /// Free-form key/value pairs from the model editor; never hashed.
    public var userInfo: [String: String]
    /// XML attributes Xcode wrote that Chrysalis does not interpret (`syncable`, …), kept so a
    /// rewritten model file loses nothing.
    public var otherXMLAttributes: [String: String]

    /// A property description with Core Data's defaults for everything not given.
    ///
    /// - Parameters:
    ///   - name: The property's name.
    ///   - isOptional: Whether a nil value is allowed.
    ///   - isTransient: Whether the property is not stored.
    ///   - isReadOnly: Whether it is read-only (a derived attribute).
    ///   - renamingIdentifier: The renaming identifier that infers a rename across versions.
    ///   - versionHashModifier: An extra string folded into its version hash.
    ///   - userInfo: The model editor's key/value pairs.
    ///   - otherXMLAttributes: XML attributes Chrysalis does not interpret, kept verbatim.
    public init(
        name: String, isOptional: Bool = false, isTransient: Bool = false, isReadOnly: Bool = false,
        renamingIdentifier: String? = nil, versionHashModifier: String? = nil,
        userInfo: [String: String] = [:], otherXMLAttributes: [String: String] = [:]
    ) {
        self.name = name
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.isReadOnly = isReadOnly
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.userInfo = userInfo
        self.otherXMLAttributes = otherXMLAttributes
    }

    /// The name that identifies this property across versions: the renaming identifier when
    /// there is one, else the name (Core Data's rule for inferring renames).
    public var canonicalName: String { renamingIdentifier ?? name }
}

/// A concrete kind of property (attribute, relationship, fetched property) that embeds the shared
/// ``PropertyDescription`` and exposes its fields directly, so `attribute.name` reads naturally.
@dynamicMemberLookup
public protocol PropertyKind {
    /// The shared part of the description.
    var property: PropertyDescription { get set }
}

extension PropertyKind {
    /// Forwards `kind.name`, `kind.isOptional`, … to the shared description.
    ///
    /// - Parameter keyPath: The field of the shared `PropertyDescription`.
    /// - Returns: The field's value.
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<PropertyDescription, Value>) -> Value {
        get { property[keyPath: keyPath] }
        set { property[keyPath: keyPath] = newValue }
    }
}
