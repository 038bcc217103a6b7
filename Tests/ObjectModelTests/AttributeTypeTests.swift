import ObjectModel
import Testing

/// Core Data's attribute types by the names Xcode writes and `NSAttributeType`'s raw values.
@Suite struct AttributeTypeTests {
    static let expected: [(name: String?, raw: Int)] = [
        (nil, 0), ("Integer 16", 100), ("Integer 32", 200), ("Integer 64", 300), ("Decimal", 400),
        ("Double", 500), ("Float", 600), ("String", 700), ("Boolean", 800), ("Date", 900),
        ("Binary", 1000), ("UUID", 1100), ("URI", 1200), ("Transformable", 1800), ("ObjectID", 2000),
        ("Composite", 2100),
    ]

    @Test func everyTypeHasItsNameAndRawValue() {
        #expect(AttributeType.allCases.map(\.xcodeName) == Self.expected.map(\.name))
        #expect(AttributeType.allCases.map(\.rawValue) == Self.expected.map(\.raw))
    }

    @Test(arguments: expected.compactMap { pair in pair.name.map { ($0, pair.raw) } })
    func nameFindsType(name: String, raw: Int) {
        #expect(AttributeType(xcodeName: name)?.rawValue == raw)
    }

    @Test func unknownNamesAreRejected() {
        #expect(AttributeType(xcodeName: "Integer 128") == nil)
        #expect(AttributeType(xcodeName: "string") == nil)
    }
}
