import Foundation
import ObjectModel
import SQLiteStore

/// Keys a key path may read from an attribute's value, as Core Data's key-value coding reads
/// them from the Foundation object the value is: `$source.url.absoluteString` (Pocket's mapping
/// model 1 → 2 turns a URI into its text), `$source.title.length`. Only keys whose result is a
/// plain value are offered; any other key after an attribute is refused when the plan is made.
enum ValueKeys {
    /// The keys a value of `type` answers.
    static func keys(of type: AttributeType) -> [String] {
        switch type {
        case .uri: return ["absoluteString", "host", "lastPathComponent", "path", "scheme"]
        case .string: return ["length", "lowercaseString", "uppercaseString"]
        case .date: return ["timeIntervalSince1970", "timeIntervalSinceReferenceDate"]
        case .binaryData: return ["length"]
        case .uuid: return ["UUIDString"]
        default: return []
        }
    }

    /// `key` read from `value`, or `nil` when the value does not answer it.
    static func value(_ value: StoreValue, key: String) -> StoreValue? {
        switch (value, key) {
        case (.uri(let url), "absoluteString"): return .string(url.absoluteString)
        case (.uri(let url), "host"): return url.host.map(StoreValue.string) ?? .null
        case (.uri(let url), "lastPathComponent"): return .string(url.lastPathComponent)
        case (.uri(let url), "path"): return .string(url.path)
        case (.uri(let url), "scheme"): return url.scheme.map(StoreValue.string) ?? .null
        // NSString's length counts UTF-16 units.
        case (.string(let text), "length"): return .integer(Int64(text.utf16.count))
        case (.string(let text), "lowercaseString"): return .string(text.lowercased())
        case (.string(let text), "uppercaseString"): return .string(text.uppercased())
        case (.date(let date), "timeIntervalSince1970"): return .double(date.timeIntervalSince1970)
        case (.date(let date), "timeIntervalSinceReferenceDate"): return .double(date.timeIntervalSinceReferenceDate)
        case (.data(let bytes), "length"): return .integer(Int64(bytes.count))
        case (.uuid(let uuid), "UUIDString"): return .string(uuid.uuidString)
        // A URI read as text (not a URL Foundation parses back the same) still has its text.
        case (.string(let text), "absoluteString"): return .string(text)
        default: return nil
        }
    }
}
