import Foundation
import SQLiteStore

/// A value expression in Core Data's syntax (`$source.price * 1.04`,
/// `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "BookToBook", $source.books)`),
/// parsed once and then either evaluated row by row or compiled to SQL.
public indirect enum Expression: Hashable, Sendable, CustomStringConvertible {
    /// A literal: number, string, boolean or nil.
    case constant(StoreValue)
    /// `$name`: one of the migration variables (`source`, `manager`, `destination`, …).
    case variable(String)
    /// `SELF`: the object a predicate is evaluated on.
    case evaluatedObject
    /// `base.a.b`; components may be collection operators such as `@count`.
    case keyPath(Expression, [String])
    /// `a + b`, `a - b`, `a * b`, `a / b`, `a ** b`.
    case arithmetic(ArithmeticOperator, Expression, Expression)
    /// `-a`.
    case negate(Expression)
    /// `FUNCTION(receiver, "selector:", arguments…)`.
    case function(Expression, String, [Expression])
    /// A built-in function such as `count:(pages)` or `now()`.
    case builtin(String, [Expression])
    /// `{a, b, c}`.
    case aggregate([Expression])
    /// `TERNARY(predicate, a, b)`: NSExpression's conditional (`NSConditionalExpressionType`),
    /// `a` where the predicate holds for the row, else `b`. The predicate is the same
    /// ``Predicate`` as an entity mapping's filter, so both are parsed, checked, evaluated and
    /// compiled to SQL by one set of code.
    case conditional(Predicate, Expression, Expression)

    /// The arithmetic operators: NSExpression's `add:to:`, `from:subtract:`, `multiply:by:`,
    /// `divide:by:` and `raise:toPower:`.
    public enum ArithmeticOperator: String, Hashable, Sendable {
        case add = "+", subtract = "-", multiply = "*", divide = "/", power = "**"
    }

    /// The expression in Core Data's syntax, reserved words escaped with `#`.
    public var description: String {
        switch self {
        case .constant(let value): return Self.literal(value)
        case .variable(let name): return "$" + name
        case .evaluatedObject: return "SELF"
        case .keyPath(let base, let path):
            let keys = path.map { ExpressionLexer.isReserved($0) ? "#" + $0 : $0 }.joined(separator: ".")
            if case .evaluatedObject = base { return keys }
            return "\(base).\(keys)"
        case .arithmetic(let op, let lhs, let rhs):
            return "\(Self.operand(lhs, of: op, right: false)) \(op.rawValue) \(Self.operand(rhs, of: op, right: true))"
        case .negate(let operand):
            if case .arithmetic = operand { return "-(\(operand))" }
            return "-\(operand)"
        case .function(let receiver, let selector, let arguments):
            return
                "FUNCTION(\(([receiver.description, Self.literal(.string(selector))] + arguments.map(\.description)).joined(separator: ", ")))"
        case .builtin(let name, let arguments):
            // By its selector, as Core Data writes it: `count:(pages)`, `modulus:by:(a, b)`, `now()`.
            return "\(name)(\(arguments.map(\.description).joined(separator: ", ")))"
        case .aggregate(let items): return "{\(items.map(\.description).joined(separator: ", "))}"
        case let .conditional(predicate, whenTrue, whenFalse): return "TERNARY(\(predicate), \(whenTrue), \(whenFalse))"
        }
    }

    /// Parenthesises an operand only where precedence or order demands it.
    private static func operand(_ expression: Expression, of parent: ArithmeticOperator, right: Bool) -> String {
        guard case .arithmetic(let child, _, _) = expression else { return expression.description }
        let rank: (ArithmeticOperator) -> Int = { $0 == .add || $0 == .subtract ? 1 : $0 == .power ? 3 : 2 }
        let needs = rank(child) < rank(parent) || (right && rank(child) == rank(parent))
        return needs ? "(\(expression))" : expression.description
    }

    static func literal(_ value: StoreValue) -> String {
        switch value {
        case .null: return "nil"
        case .string(let text):
            return "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                + "\""
        case .bool(let flag): return flag ? "YES" : "NO"
        case .integer(let number): return String(number)
        case .double(let number): return String(number)
        case .decimal(let number): return "\(number)"
        default: return "\(value)"
        }
    }

    /// `$source.<name>`: the inferred expression of an attribute mapping.
    ///
    /// - Parameter name: The source attribute's name.
    /// - Returns: The key path `$source.<name>`.
    public static func sourceKey(_ name: String) -> Expression { .keyPath(.variable("source"), [name]) }

    /// The inferred expression of a relationship mapping: the destination instances that
    /// `mapping` made from the source's `relationship`.
    ///
    /// - Parameters:
    ///   - mapping: The entity mapping that made the destination instances.
    ///   - relationship: The source relationship whose instances it made them from.
    /// - Returns: The expression that sends
    ///   `destinationInstancesForEntityMappingNamed:sourceInstances:` to `$manager`.
    public static func destinationInstances(mapping: String, relationship: String) -> Expression {
        .function(
            .variable("manager"), "destinationInstancesForEntityMappingNamed:sourceInstances:",
            [.constant(.string(mapping)), sourceKey(relationship)])
    }
}

/// A filter predicate in Core Data's syntax (`price > 10 AND title BEGINSWITH "The"`).
public indirect enum Predicate: Hashable, Sendable, CustomStringConvertible {
    /// `TRUEPREDICATE`: holds for every object.
    case truePredicate
    /// `FALSEPREDICATE`: holds for none.
    case falsePredicate
    /// `lhs OP[flags] rhs`, the flags `[c]` and `[d]` as `options`.
    case comparison(Expression, ComparisonOperator, Expression, options: Options)
    /// `a AND b AND …` (also written `&&`).
    case and([Predicate])
    /// `a OR b OR …` (also written `||`).
    case or([Predicate])
    /// `NOT a` (also written `!a`).
    case not(Predicate)

    /// The comparison operators of the supported subset.
    public enum ComparisonOperator: String, Hashable, Sendable {
        case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
        case beginsWith = "BEGINSWITH", endsWith = "ENDSWITH", contains = "CONTAINS", like = "LIKE", `in` = "IN"
        /// An ICU regular expression that matches the whole string (`NSMatchesPredicateOperatorType`).
        case matches = "MATCHES"
    }

    /// A comparison's string options (`NSComparisonPredicateOptions`): `[c]` folds case, `[d]`
    /// diacritics. `[n]` (`NSNormalizedPredicateOption`) says the strings are folded already, so it
    /// compares them as they are, and supersedes the other two.
    public struct Options: OptionSet, Hashable, Sendable {
        /// The options' bits, as `NSComparisonPredicate.Options` numbers them.
        public let rawValue: Int
        /// The options whose bits are `rawValue`.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// `[c]`, `NSCaseInsensitivePredicateOption`.
        public static let caseInsensitive = Options(rawValue: 1)
        /// `[d]`, `NSDiacriticInsensitivePredicateOption`.
        public static let diacriticInsensitive = Options(rawValue: 2)

        /// The options as a predicate writes them after its operator (`[cd]`), or nothing.
        var flags: String {
            let letters = (contains(.caseInsensitive) ? "c" : "") + (contains(.diacriticInsensitive) ? "d" : "")
            return letters.isEmpty ? "" : "[\(letters)]"
        }
    }

    /// The predicate in Core Data's syntax.
    public var description: String {
        switch self {
        case .truePredicate: return "TRUEPREDICATE"
        case .falsePredicate: return "FALSEPREDICATE"
        case let .comparison(lhs, op, rhs, options):
            return "\(lhs) \(op.rawValue)\(options.flags) \(rhs)"
        case .and(let parts): return parts.map { "(\($0))" }.joined(separator: " AND ")
        case .or(let parts): return parts.map { "(\($0))" }.joined(separator: " OR ")
        case .not(let inner): return "NOT (\(inner))"
        }
    }
}

/// An expression or predicate that does not parse or cannot be evaluated, pointing at the
/// column of the text that is wrong.
public struct ExpressionError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The whole expression text.
    public var text: String
    /// The 1-based column of the problem.
    public var column: Int
    /// What is wrong there.
    public var message: String

    /// An error at `column` of `text`.
    ///
    /// - Parameters:
    ///   - text: The whole expression text.
    ///   - column: The 1-based column of the problem.
    ///   - message: What is wrong there.
    public init(text: String, column: Int, message: String) {
        self.text = text
        self.column = column
        self.message = message
    }

    /// `column N of "text": message`.
    public var description: String { "column \(column) of \"\(text)\": \(message)" }
}

extension Expression {
    /// Selectors `FUNCTION(…)` may call: the manager's two lookups and a few string methods.
    /// Anything else is refused, so a mapping file cannot run arbitrary code.
    public static let allowedSelectors: Set<String> = [
        "destinationInstancesForEntityMappingNamed:sourceInstances:",
        "destinationInstancesForSourceRelationshipNamed:sourceInstances:",
        "uppercaseString", "lowercaseString", "stringByAppendingString:",
    ]
}
