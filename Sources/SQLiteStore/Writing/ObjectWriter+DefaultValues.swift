import Foundation
import ObjectModel

extension ObjectWriter {
    /// The model's default for `attribute`, converted from Xcode's `defaultValueString`.
    package static func defaultValue(of attribute: AttributeDescription) -> StoreValue? {
        guard let text = attribute.defaultValueString else { return nil }
        switch attribute.attributeType {
        // Numbers are read as Xcode's model compiler reads them, with NSString's integerValue and
        // doubleValue: the leading number, or 0 (Wire's `mutedStatus`, Integer 32, keeps the
        // Boolean default "NO" it had before its type changed: Core Data gives it 0).
        case .integer16, .integer32, .integer64:
            return .integer(Self.leadingNumber(text, fraction: false).flatMap { Int64($0) } ?? 0)
        case .double, .float: return .double(Self.leadingNumber(text, fraction: true).flatMap(Double.init) ?? 0)
        case .decimal: return Decimal(string: text).map(StoreValue.decimal)
        case .boolean: return .bool(["YES", "TRUE", "1"].contains(text.uppercased()))
        case .string: return .string(text)
        case .uri: return URL(string: text).map(StoreValue.uri)
        default: return nil
        }
    }

    /// The number `text` starts with, as NSString's `integerValue` (leading spaces, a sign,
    /// digits) or `doubleValue` (also a fraction and an exponent) finds it; `nil` when none.
    static func leadingNumber(_ text: String, fraction: Bool) -> String? {
        let scalars = Array(text.unicodeScalars.drop { $0 == " " || $0 == "\t" || $0 == "\n" })
        var end = 0
        func digits() -> Int {
            let start = end
            while end < scalars.count, ("0"..."9").contains(scalars[end]) { end += 1 }
            return end - start
        }
        if end < scalars.count, scalars[end] == "+" || scalars[end] == "-" { end += 1 }
        var count = digits()
        if fraction, end < scalars.count, scalars[end] == "." { end += 1; count += digits() }
        guard count > 0 else { return nil }
        if fraction, end < scalars.count, scalars[end] == "e" || scalars[end] == "E" {
            let mantissa = end
            end += 1
            if end < scalars.count, scalars[end] == "+" || scalars[end] == "-" { end += 1 }
            if digits() == 0 { end = mantissa }
        }
        return String(String.UnicodeScalarView(scalars[..<end]))
    }
}
