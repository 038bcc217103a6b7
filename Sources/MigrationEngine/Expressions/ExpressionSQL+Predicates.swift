import SQLiteStore

/// Predicates (an entity mapping's filter, a `TERNARY`'s condition) as SQL conditions for the
/// set-based fast path.
///
/// Every condition compiles to 0 or 1, never NULL: the evaluator (``PredicateEvaluator``) says
/// "false" where SQL would say NULL (`nil < 5`, `nil BEGINSWITH "a"`), and a NULL would turn
/// `NOT …` and `CASE WHEN … ELSE …` the wrong way. Strings compare as the evaluator compares
/// them, case-sensitively: no `LIKE` (case-insensitive for ASCII in SQLite), but
/// `substr`/`instr` and `=`. What has no exact SQL form (`[c]`, `LIKE`, `IN` over a to-many key
/// path, mixed kinds) returns `nil`, and the entity mapping runs row by row.
extension ExpressionSQL {
    /// `predicate` as a condition that is always 0 or 1, or `nil` when it cannot be compiled exactly.
    func compile(_ predicate: Predicate) -> Fragment? {
        switch predicate {
        case .truePredicate: return Self.condition("1")
        case .falsePredicate: return Self.condition("0")
        case .and(let parts), .or(let parts):
            let compiled = parts.compactMap(compile)
            guard compiled.count == parts.count else { return nil }
            let isAnd: Bool
            if case .and = predicate { isAnd = true } else { isAnd = false }
            guard !compiled.isEmpty else { return Self.condition(isAnd ? "1" : "0") }
            return Self.condition(
                "(" + compiled.map(\.sql).joined(separator: isAnd ? " AND " : " OR ") + ")",
                compiled.flatMap(\.arguments))
        case .not(let inner):
            guard let compiled = compile(inner) else { return nil }
            return Self.condition("(NOT \(compiled.sql))", compiled.arguments)
        case let .comparison(lhs, op, rhs, options):
            // Folding has no exact SQL form: SQLite's lower() and NOCASE fold ASCII only, and
            // nothing folds diacritics.
            guard options.isEmpty, let a = compile(lhs) else { return nil }
            if op == .in {
                guard case .aggregate(let items) = rhs else { return nil }
                return membership(a, items)
            }
            guard let b = compile(rhs), Self.comparable(a.kind, b.kind) else { return nil }
            return comparison(a, op, b)
        }
    }

    private static func condition(_ sql: String, _ arguments: [SQLValue] = []) -> Fragment {
        Fragment(sql: sql, arguments: arguments, kind: .boolean)
    }

    /// Kinds whose SQL comparison is the evaluator's: numbers (booleans and dates are numbers
    /// to both) with numbers, text with text, anything with `nil`.
    private static func comparable(_ a: Kind, _ b: Kind) -> Bool {
        let numeric: Set<Kind> = [.integer, .real, .boolean, .date]
        return (numeric.contains(a) && numeric.contains(b)) || (a == .text && b == .text) || a == .null || b == .null
    }

    private func comparison(_ a: Fragment, _ op: Predicate.ComparisonOperator, _ b: Fragment) -> Fragment? {
        let (x, y) = (a.sql, b.sql)
        switch op {
        // IS and IS NOT are never NULL, and nil == nil holds, as in the evaluator.
        case .equal: return Self.condition("(\(x) IS \(y))", a.arguments + b.arguments)
        case .notEqual: return Self.condition("(\(x) IS NOT \(y))", a.arguments + b.arguments)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            return Self.condition("coalesce(\(x) \(op.rawValue) \(y), 0)", a.arguments + b.arguments)
        case .beginsWith where a.kind == .text && b.kind == .text:
            return Self.condition(
                "coalesce(substr(\(x), 1, length(\(y))) = \(y), 0)", a.arguments + b.arguments + b.arguments)
        case .endsWith where a.kind == .text && b.kind == .text:
            return Self.condition(
                "coalesce(length(\(x)) >= length(\(y)) AND substr(\(x), length(\(x)) - length(\(y)) + 1) = \(y), 0)",
                a.arguments + b.arguments + a.arguments + a.arguments + b.arguments + b.arguments)
        case .contains where a.kind == .text && b.kind == .text:
            // An empty string is contained nowhere (Foundation's contains), though instr finds it at 1.
            return Self.condition(
                "coalesce(instr(\(x), \(y)) > 0 AND length(\(y)) > 0, 0)", a.arguments + b.arguments + b.arguments)
        default: return nil
        }
    }

    /// `a IN {b1, b2, …}` as `a IS b1 OR a IS b2 …`: the evaluator's equality item by item, so
    /// `nil IN {1, nil}` holds (SQL's `IN` would say NULL).
    private func membership(_ a: Fragment, _ items: [Expression]) -> Fragment? {
        var sql: [String] = [], arguments: [SQLValue] = []
        for item in items {
            guard let b = compile(item), Self.comparable(a.kind, b.kind) else { return nil }
            sql.append("\(a.sql) IS \(b.sql)")
            arguments += a.arguments + b.arguments
        }
        return sql.isEmpty ? Self.condition("0") : Self.condition("(" + sql.joined(separator: " OR ") + ")", arguments)
    }
}
