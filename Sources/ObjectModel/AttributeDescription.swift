/// A stored (or transient) value of an entity: Core Data's `NSAttributeDescription`.
public struct AttributeDescription: PropertyKind, Hashable, Sendable {
    /// Name, optionality, transience, renaming identifier, hash modifier, user info.
    public var property: PropertyDescription
    /// The value type; its raw value is part of the version hash.
    public var attributeType: AttributeType
    /// The default as Xcode writes it (`0`, `0.0`, `YES`, a string); never hashed.
    public var defaultValueString: String?
    /// Large binary values may live outside the SQLite file; part of the version hash.
    public var allowsExternalBinaryDataStorage: Bool
    /// Kept as a tombstone in persistent history after deletion; part of the version hash.
    public var preservesValueInHistoryOnDeletion: Bool
    /// For transformable attributes: the `ValueTransformer` name.
    public var valueTransformerName: String?
    /// For transformable attributes: the class the value decodes to.
    public var customClassName: String?
    /// Code generation hint: a scalar (`Int64`) rather than an object (`NSNumber`).
    public var usesScalarValueType: Bool?
    /// Older single-property index (`indexed="YES"`): Core Data creates an SQL index for it.
    public var isIndexed: Bool
    /// Validation bounds and pattern as Xcode writes them; never hashed.
    public var minValueString: String?
    /// See ``minValueString``.
    public var maxValueString: String?
    /// See ``minValueString``.
    public var regularExpressionString: String?
    /// For derived attributes (iOS 13+): the expression the store computes, e.g. `pages.@count`.
    /// A derived attribute hashes by its expression only.
    public var derivationExpression: String?

    /// An attribute with Core Data's defaults for everything not given.
    ///
    /// - Parameters:
    ///   - property: The name, optionality and the rest every property shares.
    ///   - type: The attribute type.
    ///   - defaultValueString: The default value as Xcode writes it, if any.
    ///   - allowsExternalBinaryDataStorage: Whether binary data may be kept outside the store; part
    ///     of the version hash.
    ///   - preservesValueInHistoryOnDeletion: Whether persistent history keeps the value when its
    ///     object is deleted; part of the version hash.
    ///   - valueTransformerName: A transformable attribute's value transformer.
    ///   - customClassName: The class a transformable attribute's values have in app code.
    ///   - usesScalarValueType: Whether generated code uses a scalar type; `nil` when the file does
    ///     not say.
    ///   - isIndexed: Whether the store indexes the attribute's column.
    ///   - minValueString: The lower validation bound as Xcode writes it.
    ///   - maxValueString: The upper validation bound as Xcode writes it.
    ///   - regularExpressionString: The validation pattern as Xcode writes it.
    ///   - derivationExpression: For a derived attribute, the expression the store computes.
    public init(
        _ property: PropertyDescription, type: AttributeType, defaultValueString: String? = nil,
        allowsExternalBinaryDataStorage: Bool = false, preservesValueInHistoryOnDeletion: Bool = false,
        valueTransformerName: String? = nil, customClassName: String? = nil,
        usesScalarValueType: Bool? = nil, isIndexed: Bool = false,
        minValueString: String? = nil, maxValueString: String? = nil,
        regularExpressionString: String? = nil, derivationExpression: String? = nil
    ) {
        self.property = property
        self.attributeType = type
        self.defaultValueString = defaultValueString
        self.allowsExternalBinaryDataStorage = allowsExternalBinaryDataStorage
        self.preservesValueInHistoryOnDeletion = preservesValueInHistoryOnDeletion
        self.valueTransformerName = valueTransformerName
        self.customClassName = customClassName
        self.usesScalarValueType = usesScalarValueType
        self.isIndexed = isIndexed
        self.minValueString = minValueString
        self.maxValueString = maxValueString
        self.regularExpressionString = regularExpressionString
        self.derivationExpression = derivationExpression
    }

    /// Whether the store computes this attribute from others (`derived="YES"`).
    public var isDerived: Bool { derivationExpression != nil }
}
