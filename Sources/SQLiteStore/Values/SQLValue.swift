import Foundation
internal import GRDB

/// A value as SQLite stores it, in one of its five storage classes: what a `SQLStatement`
/// binds and what a `StoreConnection` reads back.
///
/// It is the store's own vocabulary for SQL values, so that the modules above SQLiteStore build
/// and read statements without knowing which SQLite library runs them.
public enum SQLValue: Hashable, Sendable {
    /// SQL `NULL`.
    case null
    /// A 64-bit integer.
    case integer(Int64)
    /// A double.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Text whose bytes are not valid UTF-8. SQLite keeps whatever bytes it is given as text, and
    /// a Swift `String` would replace them with U+FFFD, so they are carried and bound as they are.
    case undecodableText(Data)
    /// Bytes.
    case blob(Data)

    /// An integer value.
    ///
    /// - Parameter value: The integer, stored as a 64-bit SQL integer.
    public init(_ value: Int) { self = .integer(Int64(value)) }

    /// Whether this is `NULL`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The integer, when this is one.
    public var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The text, when this is text.
    public var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// The value written as an SQL literal: `NULL`, `42`, `1.04`, `'it''s'`, `X'01FF'`. What
    /// `plan --sql` prints in place of a bound argument, and what a statement inlines where SQLite
    /// takes no argument (a `CASE` constant in a column default). A real that is not finite has no
    /// literal and is written `NULL`, as SQLite would store it.
    package var literal: String {
        switch self {
        case .null: return "NULL"
        case .integer(let number): return String(number)
        case .real(let number): return number.isFinite ? "\(number)" : "NULL"
        case .text(let text): return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
        case .undecodableText(let bytes): return "CAST(" + Self.hex(bytes) + " AS TEXT)"
        case .blob(let data): return Self.hex(data)
        }
    }
}

extension SQLValue {
    /// `X'01FF'`.
    private static func hex(_ bytes: Data) -> String {
        "X'" + bytes.map { String(format: "%02X", $0) }.joined() + "'"
    }

    /// The text in `bytes` as SQLite holds it: `.text` when they are UTF-8, else `.undecodableText`.
    /// (A NUL inside is kept either way: SQLite counts text in bytes.)
    package init(textBytes bytes: UnsafeBufferPointer<UInt8>) {
        if let text = String(validating: bytes, as: UTF8.self) {
            self = .text(text)
        } else {
            self = .undecodableText(Data(bytes))
        }
    }
}

extension SQLValue: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByNilLiteral {
    /// An integer literal as an SQL integer.
    ///
    /// - Parameter value: The literal's value.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// A string literal as SQL text.
    ///
    /// - Parameter value: The literal's text.
    public init(stringLiteral value: String) { self = .text(value) }
    /// `nil` as SQL `NULL`.
    ///
    /// - Parameter nilLiteral: The empty tuple Swift passes for `nil`.
    public init(nilLiteral: ()) { self = .null }
}

extension SQLValue {
    /// The same value in GRDB's terms, for binding through GRDB.
    var databaseValue: DatabaseValue {
        switch self {
        case .null: return .null
        case .integer(let number): return number.databaseValue
        case .real(let number): return number.databaseValue
        case .text(let text): return text.databaseValue
        // GRDB holds text as a String; statements that bind such text run through
        // `Statement.run(_:)`, which binds the bytes (see StoreConnection.execute).
        case .undecodableText(let bytes): return String(decoding: bytes, as: UTF8.self).databaseValue
        case .blob(let data): return data.databaseValue
        }
    }

    /// A value GRDB read.
    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let number): self = .integer(number)
        case .double(let number): self = .real(number)
        case .string(let text): self = .text(text)
        case .blob(let data): self = .blob(data)
        }
    }
}
