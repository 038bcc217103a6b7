/// Writes an archived `NSExpression` the way `-[NSExpression predicateFormat]` does, for the
/// forms models and mapping models use (key paths, variables, constants, `FUNCTION(…)` and
/// built-in functions such as `count:(pages)`).
///
/// A derived attribute's version hash is taken over this text, so it must match Apple's; mapping
/// models' value expressions go through it to reach the one expression parser.
public enum ArchivedExpression {
    /// The most parts (expressions) one archived expression may unfold into. Objects can be
    /// referenced many times, so 60 objects that each use the previous one twice would unfold
    /// into 2^60 parts: the depth limit alone does not stop that.
    public static let maximumParts = 10_000

    /// The expression text of an archived `NSExpression` object.
    public static func format(_ expression: ArchivedObject, depth: Int = 0) throws -> String {
        var budget = maximumParts
        return try format(expression, depth: depth, budget: &budget)
    }

    private static func format(_ expression: ArchivedObject, depth: Int, budget: inout Int) throws -> String {
        guard depth < 64 else { throw KeyedArchive.Failure(description: "expression nested deeper than 64 levels") }
        budget -= 1
        guard budget >= 0 else {
            throw KeyedArchive.Failure(description: "expression unfolds into more than \(maximumParts) parts (objects referenced over and over)")
        }
        let type = expression.integer("NSExpressionType")
        switch type {
        case 0:
            guard let value = try expression.object("NSConstantValue") else { return "nil" }
            if let text = value.stringValue {
                return "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
            }
            if let plain = value.plainValue, let flag = plain as? Bool, Swift.type(of: plain) == Bool.self { return flag ? "YES" : "NO" }
            return value.plainValue.map { "\($0)" } ?? "nil"
        case 1: return "SELF"
        case 2: return "$" + (try expression.string("NSVariable") ?? "")
        case 10: return try expression.string("NSKeyPath") ?? ""
        case 3, 4:
            let selector = try expression.string("NSSelectorName") ?? ""
            let operand = try expression.object("NSOperand")
            let arguments = try (expression.object("NSArguments")?.members ?? []).map { try format($0, depth: depth + 1, budget: &budget) }
            let operandClass = try operand?.string("NSConstantValueClassName")
            let isUtility = operand?.integer("NSExpressionType") == 0 && operandClass == "_NSPredicateUtilities"
            if selector == "valueForKey:" || selector == "valueForKeyPath:", let operand {
                let base = try format(operand, depth: depth + 1, budget: &budget)
                return base == "SELF" ? arguments.joined(separator: ".") : ([base] + arguments).joined(separator: ".")
            }
            if isUtility || operand == nil { return "\(selector)(\(arguments.joined(separator: ", ")))" }
            let receiver = try format(operand!, depth: depth + 1, budget: &budget)
            return "FUNCTION(\(([receiver, "\"\(selector)\""] + arguments).joined(separator: ", ")))"
        default:
            throw KeyedArchive.Failure(description: "expression type \(type.map(String.init) ?? "missing") is not supported")
        }
    }
}
