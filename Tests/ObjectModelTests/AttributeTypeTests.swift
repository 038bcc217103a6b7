import ObjectModel
import XCTest

final class AttributeTypeTests: XCTestCase {
    func testEveryCoreDataTypeHasItsNameAndRawValue() {
        let expected: [(String?, Int)] = [
            (nil, 0), ("Integer 16", 100), ("Integer 32", 200), ("Integer 64", 300), ("Decimal", 400),
            ("Double", 500), ("Float", 600), ("String", 700), ("Boolean", 800), ("Date", 900),
            ("Binary", 1000), ("UUID", 1100), ("URI", 1200), ("Transformable", 1800), ("ObjectID", 2000),
            ("Composite", 2100),
        ]
        XCTAssertEqual(AttributeType.allCases.map(\.xcodeName), expected.map(\.0))
        XCTAssertEqual(AttributeType.allCases.map(\.rawValue), expected.map(\.1))
        for case let (name?, raw) in expected {
            XCTAssertEqual(AttributeType(xcodeName: name)?.rawValue, raw)
        }
        XCTAssertNil(AttributeType(xcodeName: "Integer 128"))
    }
}
