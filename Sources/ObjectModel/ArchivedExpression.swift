/// Writes an archived `NSExpression` the way `-[NSExpression predicateFormat]` does, for the
/// forms models and mapping models use (key paths, variables, constants, `FUNCTION(…)`,
/// built-in functions such as `count:(pages)`, aggregates `{a, b}`, and `TERNARY(predicate, a, b)`
/// with its archived predicate).
///
/// A derived attribute's version hash is taken over this text, so it must match Apple's; mapping
/// models' value expressions go through it to reach the one expression parser.
public enum ArchivedExpression {
    /// The most parts (expressions) one archived expression may unfold into. Objects can be
    /// referenced many times, so 60 objects that each use the previous one twice would unfold
    /// into 2^60 parts: the depth limit alone does not stop that.
    public static let maximumParts = 10_000

    /// The expression text of an archived `NSExpression` object.
    ///
    /// - Parameters:
    ///   - expression: The archived `NSExpression` object.
    ///   - depth: How deeply `expression` is nested already; leave it at 0. At 64 it is refused.
    /// - Returns: The expression text, as `predicateFormat` writes it.
    /// - Throws: A `KeyedArchive.Failure` when the expression nests deeper than 64 levels, unfolds
    ///   into more than `maximumParts` parts, or its archive is damaged.
    public static func format(_ expression: ArchivedObject, depth: Int = 0) throws -> String {
        var budget = maximumParts
        return try format(expression, depth: depth, budget: &budget)
    }

    private static func format(_ expression: ArchivedObject, depth: Int, budget: inout Int) throws -> String {
        guard depth < 64 else { throw KeyedArchive.Failure(description: "expression nested deeper than 64 levels") }
        budget -= 1
        guard budget >= 0 else {
            throw KeyedArchive.Failure(
                description:
                    "expression unfolds into more than \(maximumParts) parts (objects referenced over and over)")
        }
        let type = expression.integer("NSExpressionType")
        switch type {
        case 0: return try constantValue(expression, budget: &budget)
        case 1: return "SELF"
        case 2: return "$" + (try expression.string("NSVariable") ?? "")
        case 10: return try expression.string("NSKeyPath") ?? ""
        case 3, 4: return try function(expression, depth: depth, budget: &budget)
        case 14:
            let items = try (expression.object("NSCollection")?.members ?? []).map {
                try format($0, depth: depth + 1, budget: &budget)
            }
            return "{\(items.joined(separator: ", "))}"
        case 20: return try ternary(expression, depth: depth, budget: &budget)
        default:
            throw KeyedArchive.Failure(
                description: "expression type \(type.map(String.init) ?? "missing") is not supported")
        }
    }

    /// NSConstantValueExpressionType (0): a value, or a constant collection (the right side of
    /// `x IN {1, 2}`) printed as an aggregate.
    private static func constantValue(_ expression: ArchivedObject, budget: inout Int) throws -> String {
        guard let value = try expression.object("NSConstantValue") else { return "nil" }
        if let name = value.className, name.hasSuffix("Array") || name.hasSuffix("Set") {
            // A constant collection (the right side of `x IN {1, 2}`), printed as an aggregate.
            let items = try value.members
            budget -= items.count
            guard budget >= 0 else {
                throw KeyedArchive.Failure(
                    description:
                        "expression unfolds into more than \(maximumParts) parts (objects referenced over and over)"
                )
            }
            return "{\(items.map(constant).joined(separator: ", "))}"
        }
        return constant(value)
    }

    /// NSFunctionExpressionType (4) and key paths sent as functions (3): `a.b`, `CAST(…)`,
    /// `name(…)`, or `FUNCTION(receiver, "selector", …)`.
    private static func function(_ expression: ArchivedObject, depth: Int, budget: inout Int) throws -> String {
        let selector = try expression.string("NSSelectorName") ?? ""
        let operand = try expression.object("NSOperand")
        let arguments = try (expression.object("NSArguments")?.members ?? []).map {
            try format($0, depth: depth + 1, budget: &budget)
        }
        let operandClass = try operand?.string("NSConstantValueClassName")
        let isUtility = operand?.integer("NSExpressionType") == 0 && operandClass == "_NSPredicateUtilities"
        if selector == "valueForKey:" || selector == "valueForKeyPath:", let operand {
            let base = try format(operand, depth: depth + 1, budget: &budget)
            return base == "SELF" ? arguments.joined(separator: ".") : ([base] + arguments).joined(separator: ".")
        }
        // `-[NSExpression predicateFormat]` writes _NSPredicateUtilities' castObject:toType:
        // as CAST (fruitsamples' MigrationV2: `FUNCTION(CAST("MigrationFunctions", "Class"), …)`).
        if isUtility, selector == "castObject:toType:" { return "CAST(\(arguments.joined(separator: ", ")))" }
        if isUtility || operand == nil { return "\(selector)(\(arguments.joined(separator: ", ")))" }
        let receiver = try format(operand!, depth: depth + 1, budget: &budget)
        return "FUNCTION(\(([receiver, "\"\(selector)\""] + arguments).joined(separator: ", ")))"
    }

    /// NSTernaryExpression (NSConditionalExpressionType 20): `NSPredicate`, `NSTrueExpression`,
    /// `NSFalseExpression`, as `TERNARY(predicate, a, b)`.
    private static func ternary(_ expression: ArchivedObject, depth: Int, budget: inout Int) throws -> String {
        guard let predicate = try expression.object("NSPredicate"),
            let whenTrue = try expression.object("NSTrueExpression"),
            let whenFalse = try expression.object("NSFalseExpression")
        else {
            throw KeyedArchive.Failure(
                description: "TERNARY expression \(expression.index) lacks its predicate or a branch")
        }
        let parts = [
            try formatPredicate(predicate, depth: depth + 1, budget: &budget),
            try format(whenTrue, depth: depth + 1, budget: &budget),
            try format(whenFalse, depth: depth + 1, budget: &budget),
        ]
        return "TERNARY(\(parts.joined(separator: ", ")))"
    }

    /// A constant's text: a quoted string, `YES`/`NO`, a number, or `nil`.
    private static func constant(_ value: ArchivedObject) -> String {
        if let text = value.stringValue {
            return "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                + "\""
        }
        if let plain = value.plainValue, let flag = plain as? Bool, Swift.type(of: plain) == Bool.self {
            return flag ? "YES" : "NO"
        }
        return value.plainValue.map { "\($0)" } ?? "nil"
    }

    /// `NSPredicateOperatorType` values and their words; custom selectors (11) and BETWEEN (100)
    /// are not supported.
    private static let operators: [Int: String] = [
        0: "<", 1: "<=", 2: ">", 3: ">=", 4: "==", 5: "!=", 6: "MATCHES", 7: "LIKE", 8: "BEGINSWITH", 9: "ENDSWITH",
        10: "IN", 99: "CONTAINS",
    ]

    /// An archived `NSPredicate` as predicate text: `NSTruePredicate`, `NSFalsePredicate`,
    /// `NSCompoundPredicate` (NOT 0, AND 1, OR 2 over `NSSubpredicates`) and `NSComparisonPredicate`
    /// (`NSLeftExpression`, `NSRightExpression`, and an `NSPredicateOperator` with `NSOperatorType`,
    /// `NSModifier`, `NSOptions` and, for equality, `NSNegate`).
    private static func formatPredicate(_ predicate: ArchivedObject, depth: Int, budget: inout Int) throws -> String {
        guard depth < 64 else { throw KeyedArchive.Failure(description: "expression nested deeper than 64 levels") }
        budget -= 1
        guard budget >= 0 else {
            throw KeyedArchive.Failure(
                description:
                    "expression unfolds into more than \(maximumParts) parts (objects referenced over and over)")
        }
        switch predicate.className {
        case "NSTruePredicate": return "TRUEPREDICATE"
        case "NSFalsePredicate": return "FALSEPREDICATE"
        default: break
        }
        if let type = predicate.integer("NSCompoundPredicateType") {
            let parts = try (predicate.object("NSSubpredicates")?.members ?? []).map {
                "(\(try formatPredicate($0, depth: depth + 1, budget: &budget)))"
            }
            switch (type, parts.count) {
            case (0, 1): return "NOT \(parts[0])"
            case (1, 1...): return parts.joined(separator: " AND ")
            case (2, 1...): return parts.joined(separator: " OR ")
            case (1, 0): return "TRUEPREDICATE"
            case (2, 0): return "FALSEPREDICATE"
            default:
                throw KeyedArchive.Failure(
                    description:
                        "compound predicate \(predicate.index) of type \(type) with \(parts.count) parts is not supported"
                )
            }
        }
        guard let left = try predicate.object("NSLeftExpression"),
            let right = try predicate.object("NSRightExpression"),
            let op = try predicate.object("NSPredicateOperator"), let type = op.integer("NSOperatorType"),
            var word = operators[type]
        else {
            throw KeyedArchive.Failure(
                description: "predicate \(predicate.index) (\(predicate.className ?? "no class")) is not supported")
        }
        guard (op.integer("NSModifier") ?? 0) == 0 else {
            throw KeyedArchive.Failure(description: "ANY/ALL predicate \(predicate.index) is not supported")
        }
        if type == 4, op.bool("NSNegate") == true { word = "!=" }
        let options = op.integer("NSOptions") ?? 0
        // NSCaseInsensitivePredicateOption 1, NSDiacriticInsensitivePredicateOption 2,
        // NSNormalizedPredicateOption 4 (which supersedes the other two).
        let flags = (options & 1 != 0 ? "c" : "") + (options & 2 != 0 ? "d" : "") + (options & 4 != 0 ? "n" : "")
        if !flags.isEmpty { word += "[\(flags)]" }
        return
            "\(try format(left, depth: depth + 1, budget: &budget)) \(word) \(try format(right, depth: depth + 1, budget: &budget))"
    }
}
