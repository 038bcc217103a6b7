import Foundation
import SQLiteStore

/// Evaluates a filter ``Predicate`` on one object.
struct PredicateEvaluator {
    let evaluator: ExpressionEvaluator

    func matches(_ predicate: Predicate) throws -> Bool {
        switch predicate {
        case .truePredicate: return true
        case .falsePredicate: return false
        case .and(let parts): return try parts.allSatisfy(matches)
        case .or(let parts): return try parts.contains(where: matches)
        case .not(let inner): return try !matches(inner)
        case let .comparison(lhs, op, rhs, options):
            return try compare(try evaluator.evaluate(lhs).plain, op, try evaluator.evaluate(rhs).plain, options)
        }
    }

    private func compare(
        _ lhs: ExpressionValue, _ op: Predicate.ComparisonOperator, _ rhs: ExpressionValue, _ options: Predicate.Options
    ) throws -> Bool {
        func text(_ value: ExpressionValue) -> String? {
            guard case .value(.string(let string)) = value else { return nil }
            return Self.folded(string, options)
        }
        switch op {
        case .equal, .notEqual:
            let equal =
                (lhs.number != nil && rhs.number != nil)
                ? lhs.number == rhs.number : (text(lhs) ?? "\(lhs)") == (text(rhs) ?? "\(rhs)")
            return op == .equal ? equal : !equal
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            let order: ComparisonResult
            if let a = lhs.number, let b = rhs.number {
                order = a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
            } else if let a = text(lhs), let b = text(rhs) {
                order = a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
            } else {
                return false
            }
            switch op {
            case .less: return order == .orderedAscending
            case .lessOrEqual: return order != .orderedDescending
            case .greater: return order == .orderedDescending
            default: return order != .orderedAscending
            }
        case .beginsWith, .endsWith, .contains, .like:
            guard let a = text(lhs), let b = text(rhs) else { return false }
            switch op {
            case .beginsWith: return a.hasPrefix(b)
            case .endsWith: return a.hasSuffix(b)
            case .contains: return a.contains(b)
            default: return Self.like(a, b)
            }
        case .in:
            guard case .collection(let items) = rhs else { return false }
            return try items.contains { try compare(lhs, .equal, $0, options) }
        case .matches:
            guard case .value(.string(let subject)) = lhs, case .value(.string(let pattern)) = rhs else { return false }
            // ICU folds case itself; diacritics are folded out of the string and the pattern alike.
            let diacritics: Predicate.Options = options.intersection(.diacriticInsensitive)
            let string = Self.folded(subject, diacritics)
            return try Self.regex(
                Self.folded(pattern, diacritics), caseInsensitive: options.contains(.caseInsensitive)
            ).firstMatch(
                in: string, options: [.anchored], range: NSRange(string.startIndex..., in: string)
            )?.range.length == (string as NSString).length
        }
    }

    /// `string` folded as a comparison's options say: case (`[c]`) and diacritics (`[d]`), as
    /// Foundation folds them, which is more than ASCII.
    static func folded(_ string: String, _ options: Predicate.Options) -> String {
        var folding: String.CompareOptions = []
        if options.contains(.caseInsensitive) { folding.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { folding.insert(.diacriticInsensitive) }
        return folding.isEmpty ? string : string.folding(options: folding, locale: nil)
    }

    /// `pattern` compiled once (a filter evaluates it per row), as ICU reads it: Foundation's
    /// `MATCHES` is an ICU regular expression that must match the whole string.
    static func regex(_ pattern: String, caseInsensitive: Bool) throws -> NSRegularExpression {
        let key = (caseInsensitive ? "i" : "s") + pattern
        if let cached = regexes.withLock({ $0[key] }) { return cached }
        let compiled: NSRegularExpression
        do {
            compiled = try NSRegularExpression(
                pattern: "(?:" + pattern + ")\\z", options: caseInsensitive ? [.caseInsensitive] : [])
        } catch {
            throw EvaluationError("MATCHES \"\(pattern)\" is not a regular expression ICU reads")
        }
        regexes.withLock { cache in
            if cache.count > 64 { cache.removeAll() }
            cache[key] = compiled
        }
        return compiled
    }

    private static let regexes = LockedRegexes()

    /// `LIKE` with `*` (any run) and `?` (one character), as in Core Data. A loop that walks
    /// the text once per `*` it retries, in constant memory: a recursive matcher used a stack
    /// frame per character and crashed the process on any text of 64 KB or more.
    static func like(_ text: String, _ pattern: String) -> Bool {
        let pattern = Array(pattern)
        var t = text.startIndex, p = 0
        // The last `*` seen, and where in the text its run would end next if retried.
        var star: Int?, retry = text.startIndex
        while t < text.endIndex {
            if p < pattern.count, pattern[p] == "?" || (pattern[p] != "*" && pattern[p] == text[t]) {
                t = text.index(after: t)
                p += 1
            } else if p < pattern.count, pattern[p] == "*" {
                star = p
                retry = t
                p += 1
            } else if let star {
                retry = text.index(after: retry)
                t = retry
                p = star + 1
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}

/// The compiled `MATCHES` patterns, shared by every evaluator in the process.
final class LockedRegexes: @unchecked Sendable {
    private var cache: [String: NSRegularExpression] = [:]
    private let lock = NSLock()

    func withLock<T>(_ body: (inout [String: NSRegularExpression]) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&cache)
    }
}
