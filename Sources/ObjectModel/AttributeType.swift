/// The type of an attribute, with Core Data's names (as Xcode writes them) and raw values.
///
/// The raw value is `NSAttributeType`'s: it is folded into the attribute's version hash, so it
/// must be exactly Core Data's.
public enum AttributeType: Int, CaseIterable, Sendable, Codable {
    case undefined = 0
    case integer16 = 100
    case integer32 = 200
    case integer64 = 300
    case decimal = 400
    case double = 500
    case float = 600
    case string = 700
    case boolean = 800
    case date = 900
    case binaryData = 1000
    case uuid = 1100
    case uri = 1200
    case transformable = 1800
    case objectID = 2000
    case composite = 2100

    /// The name Xcode writes in `attributeType="…"`; `nil` for `undefined`, which Xcode writes by
    /// omitting the XML attribute.
    public var xcodeName: String? {
        switch self {
        case .undefined: return nil
        case .integer16: return "Integer 16"
        case .integer32: return "Integer 32"
        case .integer64: return "Integer 64"
        case .decimal: return "Decimal"
        case .double: return "Double"
        case .float: return "Float"
        case .string: return "String"
        case .boolean: return "Boolean"
        case .date: return "Date"
        case .binaryData: return "Binary"
        case .uuid: return "UUID"
        case .uri: return "URI"
        case .transformable: return "Transformable"
        case .objectID: return "ObjectID"
        case .composite: return "Composite"
        }
    }

    /// A readable name for every type, `Undefined` included.
    public var displayName: String { xcodeName ?? "Undefined" }

    /// The type Xcode means by `attributeType="name"`, or `nil` when Core Data has no such type.
    ///
    /// - Parameter xcodeName: The `attributeType` value of Xcode's model file (`Integer 16`,
    ///   `String`, …).
    public init?(xcodeName: String) {
        guard let match = Self.allCases.first(where: { $0.xcodeName == xcodeName }) else { return nil }
        self = match
    }

    /// Every name Xcode accepts, for error messages that say what would have been valid.
    public static var xcodeNames: [String] { allCases.compactMap(\.xcodeName) }
}
