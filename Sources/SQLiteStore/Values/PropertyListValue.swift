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

    /// The value as a binary plist (what Core Data writes to `Z_PLIST`), by the Codable encoder:
    /// `PropertyListSerialization` fails on any array in a binary that links Foundation
    /// statically (`--static-swift-stdlib`: "property lists cannot contain objects of type 'Not
    /// A Type'"), and the encoder does not go through CoreFoundation's bridging.
    package func binaryPlist() throws -> Data {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        return try encoder.encode(self)
    }
}

extension PropertyListValue: Encodable {
    /// Each value as the plist type it is, a dictionary's keys as its keys.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let text): try container.encode(text)
        case .integer(let number): try container.encode(number)
        case .real(let number): try container.encode(number)
        case .bool(let flag): try container.encode(flag)
        case .date(let date): try container.encode(date)
        case .data(let data): try container.encode(data)
        case .array(let items): try container.encode(items)
        case .dictionary(let items): try container.encode(items)
        }
    }
}
