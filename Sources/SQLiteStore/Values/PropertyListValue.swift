import Foundation

/// A property-list value as a Swift value type, so store metadata (including keys Chrysalis
/// does not know, such as an app's own) can be kept, compared and written back unchanged.
package indirect enum PropertyListValue: Hashable, Sendable {
    case string(String)
    case integer(Int)
    case real(Double)
    case bool(Bool)
    case date(Date)
    case data(Data)
    case array([PropertyListValue])
    case dictionary([String: PropertyListValue])

    /// Converts what `PropertyListSerialization` produced; `nil` for anything a plist cannot hold.
    package init?(_ value: Any) {
        switch value {
        case let text as String: self = .string(text)
        // Integers arrive as NSNumber, which would also cast to Bool: only a real Bool is a boolean.
        case let flag as Bool where type(of: value) == Bool.self: self = .bool(flag)
        case let number as NSNumber:
            let isReal = ["d", "f"].contains(String(cString: number.objCType))
            self = isReal ? .real(number.doubleValue) : .integer(number.intValue)
        case let number as Int: self = .integer(number)
        case let number as Double: self = .real(number)
        case let date as Date: self = .date(date)
        case let data as Data: self = .data(data)
        case let list as [Any]:
            var items: [PropertyListValue] = []
            for item in list {
                guard let converted = PropertyListValue(item) else { return nil }
                items.append(converted)
            }
            self = .array(items)
        case let dictionary as [String: Any]:
            var items: [String: PropertyListValue] = [:]
            for (key, item) in dictionary {
                guard let converted = PropertyListValue(item) else { return nil }
                items[key] = converted
            }
            self = .dictionary(items)
        default: return nil
        }
    }

    /// The Foundation object `PropertyListSerialization` writes.
    package var foundationValue: Any {
        switch self {
        case .string(let text): return text
        case .integer(let number): return number
        case .real(let number): return number
        case .bool(let flag): return flag
        case .date(let date): return date
        case .data(let data): return data
        case .array(let items): return items.map(\.foundationValue)
        case .dictionary(let items): return items.mapValues(\.foundationValue)
        }
    }
}
