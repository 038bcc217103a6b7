import Foundation
import ObjectModel
import SQLiteStore

/// The values a migration most often loses or changes, one per generated row in turn: no value
/// (where the attribute is optional), empty, the smallest and largest the type holds, and text
/// beyond ASCII. Rows past the list get realistic values, so every entity has both.
enum EdgeValues {
    /// The edge value for `attribute` in generated row `row`, or `nil` past the list.
    static func value(for attribute: AttributeDescription, row: Int) -> StoreValue? {
        let values = candidates(for: attribute)
        let all = attribute.isOptional ? [StoreValue.null] + values : values
        return row < all.count ? all[row] : nil
    }

    private static func candidates(for attribute: AttributeDescription) -> [StoreValue] {
        switch attribute.attributeType {
        case .string:
            return [.string(""), .string("Zoë → 東京 🦋 \u{200D}"), .string(String(repeating: "long ", count: 400))]
        case .integer16: return [.integer(Int64(Int16.min)), .integer(Int64(Int16.max)), .integer(0)]
        case .integer32: return [.integer(Int64(Int32.min)), .integer(Int64(Int32.max)), .integer(0)]
        case .integer64: return [.integer(Int64.min), .integer(Int64.max), .integer(0)]
        case .double: return [.double(-1.0e300), .double(1.0e300), .double(0)]
        case .float: return [.double(-3.0e38), .double(3.0e38), .double(0)]
        case .decimal: return [.double(-9.99e15), .double(9.99e15), .double(0)]
        case .boolean: return [.bool(false), .bool(true)]
        case .date:
            return [
                .date(Date(timeIntervalSinceReferenceDate: -63_000_000_000)),
                .date(Date(timeIntervalSinceReferenceDate: 253_000_000_000)),
                .date(Date(timeIntervalSinceReferenceDate: 0)),
            ]
        case .binaryData: return [.data(Data()), .data(Data([0, 0xFF, 0xC3, 0x28]))]
        case .uuid: return [.uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))]
        case .uri: return [.uri(URL(string: "https://example.com/%E6%9D%B1%E4%BA%AC?q=a&b=%20")!)]
        default: return []
        }
    }
}
