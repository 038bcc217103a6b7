import Foundation

/// The JSON every command prints: keys sorted, so output is stable and diffable.
enum JSONOutput {
    static func encode<Value: Encodable>(_ value: Value, pretty: Bool = true) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self) + (pretty ? "\n" : "")
    }
}

extension JSONOutput {
    /// `text` as a JSON string literal, quotes and escapes included.
    static func quoted(_ text: String) -> String {
        (try? encode(text, pretty: false)) ?? "\"\""
    }
}
