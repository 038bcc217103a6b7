import Foundation
import SQLiteStore

/// Where an expression's variables, keys and functions come from during a migration.
protocol ExpressionContext {
    func variable(_ name: String) throws -> ExpressionValue
    func value(of object: ObjectRef, key: String) throws -> ExpressionValue
    func call(_ receiver: ExpressionValue, _ selector: String, _ arguments: [ExpressionValue]) throws -> ExpressionValue
    /// The URI of `object`'s managed object ID, `x-coredata://<store UUID>/<Entity>/p<Z_PK>`.
    func objectURI(_ object: ObjectRef) throws -> URL
}

extension ExpressionContext {
    func objectURI(_ object: ObjectRef) throws -> URL {
        throw EvaluationError("an object's objectID cannot be read here")
    }
}

/// Evaluates an ``Expression`` row by row: key paths through relationships and collection
/// operators, arithmetic (nil stays nil, as in SQL), built-ins, allowed `FUNCTION`s and
/// `TERNARY` (its predicate through the filter's ``PredicateEvaluator``).
struct ExpressionEvaluator {
    let context: ExpressionContext
    /// The object `SELF` and bare keys refer to.
    var evaluatedObject: ExpressionValue = .null

    func evaluate(_ expression: Expression) throws -> ExpressionValue {
        switch expression {
        case .constant(let value): return .value(value)
        case .variable(let name): return try context.variable(name)
        case .evaluatedObject: return evaluatedObject
        case .keyPath(let base, let path): return try walk(try evaluate(base), path[...])
        case .negate(let operand):
            let value = try evaluate(operand).plain
            if value.isNull { return .null }
            guard let number = value.number else { throw EvaluationError("cannot negate \(value.readable)") }
            // -Int64.min overflows: like arithmetic, fall back to a double rather than trap.
            if case .value(.integer(let integer)) = value, integer != .min { return .value(.integer(-integer)) }
            return .value(.double(-number))
        case .arithmetic(let op, let lhs, let rhs):
            return try arithmetic(op, try evaluate(lhs).plain, try evaluate(rhs).plain)
        case .aggregate(let items): return .collection(try items.map(evaluate))
        case .builtin(let name, let arguments): return try builtin(name, try arguments.map { try evaluate($0).plain })
        case let .conditional(predicate, whenTrue, whenFalse):
            // Only the branch taken is evaluated, as NSTernaryExpression does.
            return try evaluate(try matches(predicate) ? whenTrue : whenFalse)
        case .function(let receiver, let selector, let arguments):
            // A custom policy's own functions are the app's code, which the policy runs.
            guard Expression.allowedSelectors.contains(selector) || receiver == .variable("entityPolicy") else {
                throw EvaluationError("FUNCTION selector \"\(selector)\" is not allowed")
            }
            return try context.call(
                try evaluate(receiver).plain, selector, try arguments.map { try evaluate($0).plain })
        }
    }

    /// Whether `predicate` holds here, by the same rules as an entity mapping's filter
    /// (``PredicateEvaluator``): `nil == nil`, ordering against `nil` is false, strings compare
    /// as they are unless `[c]` or `[d]` folds them.
    func matches(_ predicate: Predicate) throws -> Bool {
        try PredicateEvaluator(evaluator: self).matches(predicate)
    }

    private func walk(_ value: ExpressionValue, _ path: ArraySlice<String>) throws -> ExpressionValue {
        guard let key = path.first else { return value }
        let rest = path.dropFirst()
        if key.hasPrefix("@") {
            switch value {
            case .collection(let members): return try collectionOperator(key, members, rest)
            case .value(.null): return try collectionOperator(key, [], rest)
            default: return try collectionOperator(key, [value], rest)
            }
        }
        switch value {
        // `objectID.URIRepresentation`: the object ID is read for its URI, a URL whose keys follow
        // (VLC's 2.5 → 2.6: `$source.objectID.URIRepresentation.path`).
        case .object(let object) where key == "objectID":
            guard rest.first == "URIRepresentation" else {
                throw EvaluationError("objectID is read for its URIRepresentation: write objectID.URIRepresentation")
            }
            return try walk(.value(.uri(try context.objectURI(object))), rest.dropFirst())
        case .object(let object): return try walk(try context.value(of: object, key: key), rest)
        case .collection(let items): return .collection(try items.map { try walk($0, path) })
        case .value(.null): return .null
        case .value(let plain):
            guard let read = ValueKeys.value(plain.plain, key: key) else {
                throw EvaluationError("cannot read key \"\(key)\" of the value \(plain)")
            }
            return try walk(.value(read), rest)
        }
    }

    /// A key path's collection operator (`@count`, `@sum`, `@distinctUnionOfObjects`…) over
    /// `items`, each read along `rest` first.
    private func collectionOperator(_ key: String, _ items: [ExpressionValue], _ rest: ArraySlice<String>) throws
        -> ExpressionValue
    {
        switch key {
        case "@count": return .value(.integer(Int64(items.count)))
        case "@sum", "@avg", "@min", "@max":
            let numbers = try items.map { try walk($0, rest) }.filter { !$0.isNull }.compactMap(\.number)
            guard !numbers.isEmpty else { return key == "@sum" ? .value(.integer(0)) : .null }
            switch key {
            case "@sum": return try Self.finite(numbers.reduce(0, +), "@sum")
            case "@avg": return try Self.finite(numbers.reduce(0, +) / Double(numbers.count), "@avg")
            case "@min": return .value(.double(numbers.min() ?? 0))
            default: return .value(.double(numbers.max() ?? 0))
            }
        case "@unionOfObjects", "@unionOfArrays":
            return .collection(try items.map { try walk($0, rest) })
        default:  // distinct unions
            var seen: Set<ExpressionValue> = []
            var result: [ExpressionValue] = []
            for item in try items.map({ try walk($0, rest) }) {
                let members: [ExpressionValue]
                if case .collection(let inner) = item, key != "@distinctUnionOfObjects" {
                    members = inner
                } else {
                    members = [item]
                }
                for member in members where seen.insert(member).inserted { result.append(member) }
            }
            return .collection(result)
        }
    }

    private func arithmetic(_ op: Expression.ArithmeticOperator, _ lhs: ExpressionValue, _ rhs: ExpressionValue) throws
        -> ExpressionValue
    {
        if lhs.isNull || rhs.isNull { return .null }
        guard let a = lhs.number, let b = rhs.number else {
            throw EvaluationError("\(op.rawValue) needs numbers, got \(lhs.readable) and \(rhs.readable)")
        }
        // Integers stay integers, as NSNumber's arithmetic keeps them: `1 / 2` is 0 in Core Data
        // (Foundation divides two integers as integers), and an overflow falls back to a double.
        if case .value(.integer(let x)) = lhs, case .value(.integer(let y)) = rhs, op != .power {
            if op == .divide && y == 0 { throw EvaluationError("division by zero") }
            let (result, overflow): (Int64, Bool)
            switch op {
            case .add: (result, overflow) = x.addingReportingOverflow(y)
            case .subtract: (result, overflow) = x.subtractingReportingOverflow(y)
            case .divide: (result, overflow) = x.dividedReportingOverflow(by: y)
            default: (result, overflow) = x.multipliedReportingOverflow(by: y)
            }
            if !overflow { return .value(.integer(result)) }
        }
        let result: Double
        switch op {
        case .add: result = a + b
        case .subtract: result = a - b
        case .multiply: result = a * b
        case .divide:
            guard b != 0 else { throw EvaluationError("division by zero") }
            result = a / b
        case .power: result = pow(a, b)
        }
        return try Self.finite(result, "\(lhs.readable) \(op.rawValue) \(rhs.readable)")
    }

    /// `number` as a value, unless it is infinite or not a number: a result past Double's range
    /// must stop the migration, not be written to the store as `inf`.
    static func finite(_ number: Double, _ what: String) throws -> ExpressionValue {
        guard number.isFinite else {
            throw EvaluationError(
                """
                \(what) gives \(number.isNaN ? "no number (NaN)" : "infinity"): the result is past the range of a \
                Double (about ±1.8e308)
                """
            )
        }
        return .value(.double(number))
    }

    private func builtin(_ name: String, _ arguments: [ExpressionValue]) throws -> ExpressionValue {
        if name == "CAST", arguments.count == 2, case .value(.string(let type)) = arguments[1] {
            return try cast(arguments[0], to: type)
        }
        return try BuiltinFunction.evaluate(name, arguments)
    }
}

extension ExpressionEvaluator {
    /// `CAST(value, type)` as NSExpression converts: a number or a numeric string to `NSNumber`,
    /// anything to `NSString`, a number (seconds since 2001-01-01) to `NSDate`, a date to the
    /// number of its seconds. `Class` names app code, which no evaluator here can run.
    func cast(_ value: ExpressionValue, to type: String) throws -> ExpressionValue {
        if value.isNull { return .null }
        switch (type, value) {
        case ("NSNumber", .value(.date(let date))): return .value(.double(date.timeIntervalSinceReferenceDate))
        case ("NSNumber", .value(.string(let text))):
            if let integer = Int64(text) { return .value(.integer(integer)) }
            return Double(text).map { .value(.double($0)) } ?? .value(.integer(0))
        case ("NSNumber", _) where value.number != nil: return value
        case ("NSString", .value(.string)): return value
        case ("NSString", _) where value.number != nil: return .value(.string(value.readable))
        case ("NSDate", .value(.date)): return value
        case ("NSDate", _) where value.number != nil:
            return .value(.date(Date(timeIntervalSinceReferenceDate: value.number ?? 0)))
        case ("Class", _):
            throw EvaluationError(
                """
                CAST(\(value.readable), \"Class\") names the app's class \(value.readable), whose code Chrysalis \
                cannot run
                """
            )
        default:
            throw EvaluationError(
                "CAST of \(value.readable) to \"\(type)\" is not supported (NSNumber, NSString, NSDate)")
        }
    }
}

/// An expression that parsed but cannot be evaluated on this data.
struct EvaluationError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
