import Foundation

/// The JSON every command prints: keys sorted, so output is stable and diffable.
enum JSONOutput {
    static func encode<Value: Encodable>(_ value: Value, pretty: Bool = true) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self) + (pretty ? "\n" : "")
    }
}

extension JSONOutput {
    /// `text` as a JSON string literal, quotes and escapes included.
    static func quoted(_ text: String) -> String {
        (try? encode(text, pretty: false)) ?? "\"\""
    }
}

extension JSONOutput {
    /// Whether the command line asks for JSON: known before it is parsed, so that a usage error
    /// ends the output as JSON too. Arguments after `--` are names, not options.
    static var requested: Bool {
        Invocation.current.arguments.prefix { $0 != "--" }.contains("--json")
    }

    /// The object a command given `--json` ends with when it fails: what went wrong, where the
    /// store stands (`unchanged` when no store was touched), and the exit status. A reader of
    /// standard output always gets JSON, never silence.
    static func errorEvent(_ message: String, state: String = "unchanged", status: Int32) -> String {
        let event: [String: Any] = ["event": "error", "message": message, "state": state, "status": Int(status)]
        let data =
            (try? JSONSerialization.data(withJSONObject: event, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
