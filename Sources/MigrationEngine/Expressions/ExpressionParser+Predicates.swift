import Foundation
import SQLiteStore

/// Predicates: `AND`, `OR`, `NOT`, comparisons with their options, as filters and `TERNARY` write them.
extension ExpressionParser {
    mutating func orPredicate() throws -> Predicate {
        var parts = [try andPredicate()]
        while isWord("OR") || isSymbol("||") {
            position += 1
            parts.append(try andPredicate())
        }
        return parts.count == 1 ? parts[0] : .or(parts)
    }

    mutating func andPredicate() throws -> Predicate {
        var parts = [try notPredicate()]
        while isWord("AND") || isSymbol("&&") {
            position += 1
            parts.append(try notPredicate())
        }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    mutating func notPredicate() throws -> Predicate {
        if isWord("NOT") || isSymbol("!") {
            position += 1
            return .not(try nested { try $0.notPredicate() })
        }
        if isWord("TRUEPREDICATE") { position += 1; return .truePredicate }
        if isWord("FALSEPREDICATE") { position += 1; return .falsePredicate }
        if isSymbol("("), !failedPredicateParentheses.contains(position) {
            // A parenthesised predicate, or an expression that starts with a parenthesis.
            let saved = position
            position += 1
            if let inner = try? nested({ try $0.orPredicate() }), isSymbol(")") {
                position += 1
                return inner
            }
            position = saved
            failedPredicateParentheses.insert(saved)
        }
        return try comparison()
    }

    mutating func comparison() throws -> Predicate {
        let lhs = try additive()
        let token = current
        var op: Predicate.ComparisonOperator?
        switch token.kind {
        case .symbol(let symbol): op = Predicate.ComparisonOperator(rawValue: symbol)
        case .identifier(let word): op = Predicate.ComparisonOperator(rawValue: word.uppercased())
        default: break
        }
        guard let op else {
            throw error(
                "expected a comparison (==, !=, <, >, BEGINSWITH, CONTAINS, LIKE, IN…), found \(describe(token))")
        }
        position += 1
        var options: Predicate.Options = []
        if isSymbol("[") {
            position += 1
            guard case .identifier(let flags) = current.kind, flags.allSatisfy({ "cdn".contains($0) }) else {
                throw error("expected comparison options such as [c] or [cd]")
            }
            // `[n]` supersedes `[c]` and `[d]` (`NSNormalizedPredicateOption`): the strings are
            // folded already, and compared as they are.
            if flags.contains("c"), !flags.contains("n") { options.insert(.caseInsensitive) }
            if flags.contains("d"), !flags.contains("n") { options.insert(.diacriticInsensitive) }
            position += 1
            try expect("]")
        }
        return .comparison(lhs, op, try additive(), options: options)
    }
}
