import Foundation
import SQLiteStore

/// NSExpression's built-in functions (`+[NSExpression expressionForFunction:arguments:]`, which
/// Foundation sends to `_NSPredicateUtilities`), by selector: each one Core Data can evaluate in a
/// mapping model's value expression, with the number of arguments it takes and what it returns, as
/// Apple's `NSExpression` documentation and header list them. An archived mapping model holds them
/// by selector (`multiply:by:`, `now`, `castObject:toType:`); text writes a one-part selector as a
/// function (`sqrt(x)`, `now()`, Core Data's `count:(x)` too) and any selector as
/// `multiply:by:(a, b)`. The four arithmetic selectors are ``Expression/arithmetic(_:_:_:)``,
/// `raise:toPower:` is `**` too, and `castObject:toType:` is `CAST(…)`.
enum BuiltinFunction {
    /// The selectors Chrysalis evaluates, with their argument counts.
    static let arity: [String: Int] = [
        "average:": 1, "sum:": 1, "count:": 1, "min:": 1, "max:": 1, "median:": 1, "mode:": 1, "stddev:": 1,
        "modulus:by:": 2, "sqrt:": 1, "log:": 1, "ln:": 1, "exp:": 1, "ceiling:": 1,
        "floor:": 1, "trunc:": 1, "abs:": 1, "uppercase:": 1, "lowercase:": 1, "length:": 1, "random": 0,
        "randomn:": 1, "now": 0, "bitwiseAnd:with:": 2, "bitwiseOr:with:": 2, "bitwiseXor:with:": 2,
        "leftshift:by:": 2, "rightshift:by:": 2, "onesComplement:": 1, "noindex:": 1, "objectFrom:withIndex:": 2,
    ]

    /// The arithmetic selectors, which are Core Data's `+ - * /` (`predicateFormat` writes them so).
    static let arithmetic: [String: Expression.ArithmeticOperator] = [
        "add:to:": .add, "from:subtract:": .subtract, "multiply:by:": .multiply, "divide:by:": .divide,
        "raise:toPower:": .power,
    ]

    /// Selectors Foundation has that a migration cannot evaluate, with why: said when a mapping
    /// model names one, rather than "unknown".
    static let refused: [String: String] = [
        "distanceToLocation:fromLocation:": "it takes CLLocation objects, which no store attribute holds",
        "distinct:": "Foundation does not document what it returns",
        "canonical:": "it is private to Foundation, undocumented",
        "tokenize:using:": "it is private to Foundation, undocumented",
        "indexed:by:": "it is private to Foundation, undocumented",
        "inverseOrderKey:": "it is private to Foundation, undocumented",
    ]

    /// The selector a function written `name` in text means: `name` for one without arguments,
    /// `name:` for one with, as Foundation's parser reads `sqrt(4)` as `sqrt:`.
    static func selector(forFunctionNamed name: String) -> String {
        arity[name] == 0 ? name : name + ":"
    }

    /// The function `selector` applied to `arguments` (each evaluated, plain).
    static func evaluate(_ selector: String, _ arguments: [ExpressionValue]) throws -> ExpressionValue {
        if let result = try zeroOrTwo(selector, arguments) { return result }
        guard let argument = arguments.first else { throw EvaluationError("\(selector) needs an argument") }
        switch selector {
        case "count:", "sum:", "average:", "min:", "max:", "median:", "mode:", "stddev:":
            return try statistic(selector, members(argument))
        case "abs:":
            guard let number = argument.number else { return .null }
            if case .value(.integer(let integer)) = argument, integer != .min { return .value(.integer(abs(integer))) }
            return .value(.double(abs(number)))
        case "sqrt:", "log:", "ln:", "exp:", "ceiling:", "floor:", "trunc:":
            return try math(selector, argument)
        case "uppercase:", "lowercase:", "length:":
            guard case .value(.string(let text)) = argument else { return argument.isNull ? .null : argument }
            // NSString's length counts UTF-16 units.
            if selector == "length:" { return .value(.integer(Int64(text.utf16.count))) }
            return .value(.string(selector == "uppercase:" ? text.uppercased() : text.lowercased()))
        case "randomn:":
            guard case .value(.integer(let bound)) = argument, bound > 0 else {
                throw EvaluationError("randomn: needs a positive integer, got \(argument.readable)")
            }
            return .value(.integer(Int64.random(in: 0..<bound)))
        case "onesComplement:":
            return .value(.integer(~(try integer(argument, selector))))
        case "noindex:": return argument
        default: throw EvaluationError("unknown function \(selector)")
        }
    }

    /// The functions of no argument or two.
    private static func zeroOrTwo(_ selector: String, _ arguments: [ExpressionValue]) throws -> ExpressionValue? {
        switch selector {
        case "now": return .value(.date(Date()))
        // Foundation's `random` gives a double in [0, 1).
        case "random": return .value(.double(Double.random(in: 0..<1)))
        case "modulus:by:", "bitwiseAnd:with:", "bitwiseOr:with:", "bitwiseXor:with:", "leftshift:by:",
            "rightshift:by:", "objectFrom:withIndex:":
            guard arguments.count == 2 else { throw EvaluationError("\(selector) takes two arguments") }
            let (a, b) = (arguments[0], arguments[1])
            if selector == "objectFrom:withIndex:" { return try element(of: a, at: b) }
            if a.isNull || b.isNull { return .null }
            if selector == "modulus:by:" { return try modulus(a, b) }
            let (x, y) = (try integer(a, selector), try integer(b, selector))
            switch selector {
            case "bitwiseAnd:with:": return .value(.integer(x & y))
            case "bitwiseOr:with:": return .value(.integer(x | y))
            case "bitwiseXor:with:": return .value(.integer(x ^ y))
            case "leftshift:by:": return .value(.integer(x << y))
            default: return .value(.integer(x >> y))
            }
        default: return nil
        }
    }

    /// A collection's members, or the one value.
    private static func members(_ value: ExpressionValue) -> [ExpressionValue] {
        if case .collection(let members) = value { return members }
        return value.isNull ? [] : [value]
    }

    /// `count:` and the statistics of a collection of numbers (nil members left out).
    private static func statistic(_ selector: String, _ items: [ExpressionValue]) throws -> ExpressionValue {
        if selector == "count:" { return .value(.integer(Int64(items.filter { !$0.isNull }.count))) }
        let numbers = items.filter { !$0.isNull }.compactMap(\.number)
        guard !numbers.isEmpty else { return selector == "sum:" ? .value(.integer(0)) : .null }
        switch selector {
        case "sum:": return try ExpressionEvaluator.finite(numbers.reduce(0, +), "sum:")
        case "average:": return try ExpressionEvaluator.finite(numbers.reduce(0, +) / Double(numbers.count), "average:")
        case "min:": return .value(.double(numbers.min() ?? 0))
        case "max:": return .value(.double(numbers.max() ?? 0))
        case "median:":
            let sorted = numbers.sorted(), middle = sorted.count / 2
            return .value(.double(sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2))
        case "mode:":
            // Every value that occurs most often, in the order each first occurs: an array.
            var counts: [Double: Int] = [:]
            for number in numbers { counts[number, default: 0] += 1 }
            let most = counts.values.max() ?? 0
            var seen: Set<Double> = []
            let modes = numbers.filter { counts[$0] == most && seen.insert($0).inserted }
            return .collection(modes.map { .value(.double($0)) })
        default:  // stddev: the population's (divided by n)
            let mean = numbers.reduce(0, +) / Double(numbers.count)
            let variance = numbers.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(numbers.count)
            return try ExpressionEvaluator.finite(variance.squareRoot(), "stddev:")
        }
    }

    /// The one-number functions; an integer stays one where the function keeps it whole.
    private static func math(_ selector: String, _ argument: ExpressionValue) throws -> ExpressionValue {
        if argument.isNull { return .null }
        guard let number = argument.number else {
            throw EvaluationError("\(selector) needs a number, got \(argument.readable)")
        }
        if case .value(.integer) = argument, ["ceiling:", "floor:", "trunc:"].contains(selector) { return argument }
        let result: Double
        switch selector {
        case "sqrt:": result = number.squareRoot()
        case "log:": result = log10(number)
        case "ln:": result = log(number)
        case "exp:": result = Foundation.exp(number)
        case "ceiling:": result = number.rounded(.up)
        case "floor:": result = number.rounded(.down)
        default: result = number.rounded(.towardZero)
        }
        return try ExpressionEvaluator.finite(result, "\(selector)(\(argument.readable))")
    }

    /// `modulus:by:`: the remainder with the dividend's sign, of integers as integers.
    private static func modulus(_ a: ExpressionValue, _ b: ExpressionValue) throws -> ExpressionValue {
        guard let x = a.number, let y = b.number else {
            throw EvaluationError("modulus:by: needs numbers, got \(a.readable) and \(b.readable)")
        }
        guard y != 0 else { throw EvaluationError("modulus:by: by zero") }
        if case .value(.integer(let i)) = a, case .value(.integer(let j)) = b {
            let (remainder, overflow) = i.remainderReportingOverflow(dividingBy: j)
            return .value(.integer(overflow ? 0 : remainder))
        }
        return try ExpressionEvaluator.finite(fmod(x, y), "modulus:by:(\(a.readable), \(b.readable))")
    }

    /// `objectFrom:withIndex:`, NSExpression's `array[index]`: the member at a 0-based index.
    private static func element(of array: ExpressionValue, at index: ExpressionValue) throws -> ExpressionValue {
        guard case .value(.integer(let position)) = index else {
            throw EvaluationError("objectFrom:withIndex: needs an integer index, got \(index.readable)")
        }
        let items = members(array)
        guard position >= 0, position < items.count else {
            throw EvaluationError("objectFrom:withIndex: index \(position) is past the \(items.count) members")
        }
        return items[Int(position)]
    }

    /// An integer argument of a bitwise function.
    private static func integer(_ value: ExpressionValue, _ selector: String) throws -> Int64 {
        guard case .value(.integer(let number)) = value else {
            throw EvaluationError("\(selector) needs integers, got \(value.readable)")
        }
        return number
    }
}
