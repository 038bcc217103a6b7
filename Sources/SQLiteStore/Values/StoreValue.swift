import Foundation
internal import GRDB
import ObjectModel

/// An attribute value as Chrysalis reads and writes it, converted to and from Core Data's
/// column encoding: dates as seconds since 2001, UUIDs as 16 bytes, booleans as 0/1.
public enum StoreValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case double(Double)
    case decimal(Decimal)
    case string(String)
    case bool(Bool)
    case date(Date)
    case data(Data)
    case uuid(UUID)
    case uri(URL)
    /// An external-storage binary whose bytes live in a file beside the store (tag 2 + UUID).
    case externalDataReference(String)
    /// A value as SQLite holds it, where no value of the attribute's type would write the same
    /// bytes back: text that is not UTF-8, a blob or text where a number belongs, a boolean of 2,
    /// a UUID that is not 16 bytes. A migration carries it byte for byte unless an expression
    /// transforms it (then it counts as its plain value, ``plain``).
    case stored(SQLValue)

    /// The SQL value Core Data stores for this value in an attribute of `attribute`'s type;
    /// `nil` when the value cannot be stored there.
    package func sqlValue(for attribute: AttributeDescription) -> SQLValue? {
        sqlValue(for: StorageKind(attribute))
    }

    /// What converting a value to and from an attribute's column depends on, small enough to
    /// keep per column: the per-row paths would otherwise copy a whole attribute description.
    package struct StorageKind: Sendable {
        let type: AttributeType
        let allowsExternalBinaryDataStorage: Bool

        /// The storage kind of `attribute`'s column.
        package init(_ attribute: AttributeDescription) {
            type = attribute.attributeType
            allowsExternalBinaryDataStorage = attribute.allowsExternalBinaryDataStorage
        }
    }

    /// ``sqlValue(for:)-(AttributeDescription)`` for an attribute of `kind`.
    package func sqlValue(for kind: StorageKind) -> SQLValue? {
        if case .null = self { return .null }
        if case .stored(let value) = self { return value }
        switch (kind.type, self) {
        case (.integer16, .integer(let number)), (.integer32, .integer(let number)), (.integer64, .integer(let number)):
            return .integer(number)
        case (.integer16, .bool(let flag)), (.integer32, .bool(let flag)), (.integer64, .bool(let flag)),
            (.boolean, .bool(let flag)):
            return .integer(flag ? 1 : 0)
        case (.boolean, .integer(let number)) where number == 0 || number == 1:
            return .integer(number)
        case (.date, .date(let date)): return .real(date.timeIntervalSinceReferenceDate)
        case (.date, .double(let seconds)): return .real(seconds)
        case (.double, .double(let number)), (.float, .double(let number)), (.decimal, .double(let number)):
            return .real(number)
        case (.double, .integer(let number)), (.float, .integer(let number)), (.decimal, .integer(let number)):
            return .real(Double(number))
        case (.decimal, .decimal(let number)): return .real(NSDecimalNumber(decimal: number).doubleValue)
        case (.string, .string(let text)), (.uri, .string(let text)): return .text(text)
        case (.uri, .uri(let url)): return .text(url.absoluteString)
        case (.uuid, .uuid(let uuid)): return .blob(Data(withUnsafeBytes(of: uuid.uuid) { Array($0) }))
        case (.binaryData, .data(let data)), (.transformable, .data(let data)):
            return .blob(kind.allowsExternalBinaryDataStorage ? Data([1]) + data : data)
        case (.binaryData, .externalDataReference(let reference)) where kind.allowsExternalBinaryDataStorage:
            return .blob(Data([2]) + Data(reference.utf8) + Data([0]))
        default: return nil
        }
    }

    /// ``sqlValue(for:)-(AttributeDescription)`` in GRDB's terms, for the store's own queries.
    func databaseValue(for attribute: AttributeDescription) -> DatabaseValue? {
        sqlValue(for: StorageKind(attribute))?.databaseValue
    }

    /// The value of an attribute of `attribute`'s type stored as `value`.
    init(_ value: DatabaseValue, for attribute: AttributeDescription) {
        self.init(SQLValue(value), for: StorageKind(attribute))
    }

    /// The value of an attribute of `kind` stored as `value`: the typed value that writes the
    /// same bytes back (``sqlValue(for:)-(StorageKind)``), else the value as stored (``stored(_:)``).
    /// A migration reads every attribute this way, so a value it does not transform is never
    /// changed by reading it: evidence and cases in `ValueFidelityTests`.
    package init(_ value: SQLValue, for kind: StorageKind) {
        switch (kind.type, value) {
        case (_, .null): self = .null
        // SQLite's NUMERIC affinity (Core Data's INTEGER, TIMESTAMP and DECIMAL columns) stores a
        // real that is a whole number as an integer, so a whole-second date comes back as one.
        case (.boolean, .integer(let number)) where number == 0 || number == 1: self = .bool(number != 0)
        case (.integer16, .integer(let number)), (.integer32, .integer(let number)), (.integer64, .integer(let number)):
            self = .integer(number)
        case (.date, .real(let seconds)): self = .date(Date(timeIntervalSinceReferenceDate: seconds))
        case (.date, .integer(let seconds)) where Self.exactlyDouble(seconds):
            self = .date(Date(timeIntervalSinceReferenceDate: Double(seconds)))
        case (.decimal, .real(let number)):
            // Only a decimal that converts back to the same double; Decimal(Double) traps on infinity.
            if number.isFinite, let decimal = Decimal(string: String(number)),
                NSDecimalNumber(decimal: decimal).doubleValue == number
            {
                self = .decimal(decimal)
            } else {
                self = .stored(value)
            }
        case (.decimal, .integer(let number)) where Self.exactlyDouble(number): self = .decimal(Decimal(number))
        case (.double, .real(let number)), (.float, .real(let number)): self = .double(number)
        case (.double, .integer(let number)),
            (.float, .integer(let number)) where Self.exactlyDouble(number):
            self = .double(Double(number))
        case (.uuid, .blob(let bytes)) where bytes.count == 16:
            self = .uuid(bytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) })
        case (.uri, .text(let text)):
            self = URL(string: text).flatMap { $0.absoluteString == text ? StoreValue.uri($0) : nil } ?? .string(text)
        case (.string, .text(let text)): self = .string(text)
        case (.binaryData, .blob(let bytes)) where kind.allowsExternalBinaryDataStorage:
            self = Self.external(bytes) ?? .stored(value)
        case (.binaryData, .blob(let bytes)), (.transformable, .blob(let bytes)): self = .data(bytes)
        default: self = .stored(value)
        }
    }

    /// Whether a double holds `number` exactly, so that writing it back as a real loses nothing.
    private static func exactlyDouble(_ number: Int64) -> Bool {
        Double(exactly: number) != nil
    }

    /// External-storage blobs carry a tag byte: 1 = the bytes follow, 2 = a file reference (its
    /// name in UTF-8, then a NUL). `nil` for bytes that are neither, which are kept as stored.
    private static func external(_ bytes: Data) -> StoreValue? {
        switch bytes.first {
        case 1: return .data(bytes.dropFirst())
        case 2:
            let name = bytes.dropFirst().dropLast()
            guard bytes.last == 0, !name.contains(0), let reference = String(validating: name, as: UTF8.self) else {
                return nil
            }
            return .externalDataReference(reference)
        default: return nil
        }
    }

    /// The value as an expression or a policy's arithmetic sees it: a ``stored(_:)`` value as the
    /// plain value of its storage class (text that is not UTF-8 with U+FFFD in place of its bad
    /// bytes); any other value as it is.
    public var plain: StoreValue {
        guard case .stored(let value) = self else { return self }
        switch value {
        case .null: return .null
        case .integer(let number): return .integer(number)
        case .real(let number): return .double(number)
        case .text(let text): return .string(text)
        case .undecodableText(let bytes): return .string(String(decoding: bytes, as: UTF8.self))
        case .blob(let bytes): return .data(bytes)
        }
    }
}

extension StoreValue: CustomStringConvertible {
    /// The value as a message shows it to a person: `nil`, `42`, `1.5`, `"text"`, `YES`, a date,
    /// `<12 bytes>`, a UUID or URL, never Swift's spelling of the enum.
    public var description: String {
        switch self {
        case .null: return "nil"
        case .integer(let number): return String(number)
        case .double(let number): return String(number)
        case .decimal(let number): return "\(number)"
        case .string(let text): return "\"" + (text.count > 60 ? String(text.prefix(60)) + "…" : text) + "\""
        case .bool(let flag): return flag ? "YES" : "NO"
        case .date(let date): return date.description
        case .data(let data): return "<\(data.count) byte\(data.count == 1 ? "" : "s")>"
        case .uuid(let uuid): return uuid.uuidString
        case .uri(let url): return url.absoluteString
        case .externalDataReference(let reference): return "<external data \(reference)>"
        case .stored(let value):
            if case .undecodableText(let bytes) = value { return "<text of \(bytes.count) bytes, not UTF-8>" }
            return plain.description
        }
    }
}
