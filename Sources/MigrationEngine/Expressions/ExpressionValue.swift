import Foundation
import SQLiteStore

/// An object a migration expression can reach: a source instance or a destination instance.
public struct ObjectRef: Hashable, Sendable {
    /// Which store the object lives in.
    public enum Side: Hashable, Sendable { case source, destination }
    /// Which store.
    public var side: Side
    /// The object's ID in that store.
    public var id: ObjectID
}

/// What an expression evaluates to: a plain value, an object, or a collection of either.
public enum ExpressionValue: Hashable, Sendable {
    case value(StoreValue)
    case object(ObjectRef)
    case collection([ExpressionValue])

    /// `nil`.
    public static let null = ExpressionValue.value(.null)

    /// The objects this value holds (itself, or a collection's objects, flattened).
    public var objects: [ObjectRef] {
        switch self {
        case .object(let object): return [object]
        case .collection(let items): return items.flatMap(\.objects)
        case .value: return []
        }
    }

    /// The value as a number, if it is one.
    var number: Double? {
        guard case .value(let value) = self else { return nil }
        switch value.plain {
        case .integer(let number): return Double(number)
        case .double(let number): return number
        case .decimal(let number): return NSDecimalNumber(decimal: number).doubleValue
        case .bool(let flag): return flag ? 1 : 0
        case .date(let date): return date.timeIntervalSinceReferenceDate
        default: return nil
        }
    }

    var isNull: Bool { self == .null }

    /// The value with every ``StoreValue/stored(_:)`` value as its plain value: what arithmetic,
    /// functions and comparisons work on. A bare key path keeps the stored bytes, so a value
    /// copied unchanged is written back as it was read.
    var plain: ExpressionValue {
        switch self {
        case .value(let value): return .value(value.plain)
        case .object: return self
        case .collection(let items): return .collection(items.map(\.plain))
        }
    }

    /// The value as an error message shows it: `42`, `"text"`, `nil`, `source object 2/p5`,
    /// `{1, 2}` — never Swift's spelling of the enum. (Not `description`: filters compare some
    /// values by their description, and that must not change.)
    public var readable: String {
        switch self {
        case .value(let value): return value.description
        case .object(let object): return "\(object.side == .source ? "source" : "destination") object \(object.id)"
        case .collection(let items):
            let shown = items.prefix(10).map(\.readable).joined(separator: ", ")
            return "{" + shown + (items.count > 10 ? ", … (\(items.count) in all)" : "") + "}"
        }
    }

    /// Converts the value for an attribute of `type`: numbers convert between number types (an
    /// integer attribute truncates), everything else must already be of the attribute's kind.
    /// A number the attribute cannot hold (infinity, NaN, past `Int64`) gives `nil`, which the
    /// caller reports, instead of trapping.
    func storeValue(for type: AttributeTypeName) -> StoreValue? {
        guard case .value(let value) = self else { return nil }
        if case .null = value { return .null }
        // Read from the store and not transformed: written back byte for byte.
        if case .stored = value { return value }
        switch type {
        case .integer:
            if case .integer = value { return value }
            return number.flatMap { Int64(exactly: $0.rounded(.towardZero)) }.map(StoreValue.integer)
        case .real:
            if case .double = value { return value }
            // A decimal past Double's range would become infinity.
            return number.flatMap { $0.isFinite ? StoreValue.double($0) : nil }
        case .decimal:
            if case .decimal = value { return value }
            if case .integer(let number) = value { return .decimal(Decimal(number)) }
            return number.flatMap { $0.isFinite ? StoreValue.decimal(Decimal(string: String($0)) ?? Decimal($0)) : nil }
        case .boolean:
            if case .bool = value { return value }
            return number.map { StoreValue.bool($0 != 0) }
        case .date:
            if case .date = value { return value }
            if case .double(let seconds) = value { return .date(Date(timeIntervalSinceReferenceDate: seconds)) }
            return nil
        case .other: return value
        }
    }
}

/// The kinds of attribute an expression value converts into.
enum AttributeTypeName {
    case integer, real, decimal, boolean, date, other
}
