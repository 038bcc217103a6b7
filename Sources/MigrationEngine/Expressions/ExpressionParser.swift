import Foundation
import SQLiteStore

/// Parses Core Data's expression and predicate syntax into ``Expression`` and ``Predicate``.
///
/// The subset: literals, the six migration variables, key paths with `#`-escaped reserved words
/// and collection operators, arithmetic, `FUNCTION(…)`, built-ins such as `count:(x)`,
/// `TERNARY(predicate, a, b)`, and for predicates comparisons (with `[c]`),
/// `BEGINSWITH`/`ENDSWITH`/`CONTAINS`/`LIKE`/`IN`, `AND`/`OR`/`NOT` (`&&`, `||`, `!`),
/// `TRUEPREDICATE`/`FALSEPREDICATE` and parentheses.
public struct ExpressionParser {
    let text: String
    let tokens: [ExpressionLexer.Token]
    var position = 0
    var depth = 0
    /// Positions of a `(` where reading a parenthesised predicate already failed. Since TERNARY
    /// puts predicates inside expressions, a failed attempt would otherwise be retried once per
    /// way of reaching it: `TERNARY(NOT (` sixty times over took 2^60 attempts.
    var failedPredicateParentheses: Set<Int> = []

    /// The longest expression text read, in UTF-8 bytes. Real value expressions and filters are
    /// a line or two; a megabyte of text is not one, and would take seconds to tokenize.
    static let maximumLength = 10_000

    private init(_ text: String) throws {
        guard text.utf8.count <= Self.maximumLength else {
            throw ExpressionError(
                text: String(text.prefix(80)) + "…", column: Self.maximumLength + 1,
                message:
                    "the expression is \(text.utf8.count) bytes long; expressions are limited to \(Self.maximumLength)")
        }
        self.text = text
        tokens = try ExpressionLexer.tokens(text)
    }

    /// Parses a whole value expression.
    ///
    /// - Parameter text: The expression in Core Data's syntax (`$source.price * 1.1`).
    /// - Returns: The parsed expression.
    /// - Throws: An `ExpressionError` at the column that does not parse, or for text too long or nested too deeply.
    public static func expression(_ text: String) throws -> Expression {
        var parser = try ExpressionParser(text)
        let result = try parser.additive()
        try parser.expectEnd()
        return result
    }

    /// Parses a whole predicate.
    ///
    /// - Parameter text: The predicate in Core Data's syntax (`price > 10 AND title BEGINSWITH "The"`).
    /// - Returns: The parsed predicate.
    /// - Throws: An `ExpressionError` at the column that does not parse, or for text too long or nested too deeply.
    public static func predicate(_ text: String) throws -> Predicate {
        var parser = try ExpressionParser(text)
        let result = try parser.orPredicate()
        try parser.expectEnd()
        return result
    }

    // MARK: Tokens

    var current: ExpressionLexer.Token { tokens[position] }

    func error(_ message: String, at token: ExpressionLexer.Token? = nil) -> ExpressionError {
        ExpressionError(text: text, column: (token ?? current).column, message: message)
    }

    func isSymbol(_ symbol: String) -> Bool { current.kind == .symbol(symbol) }

    func isWord(_ word: String) -> Bool {
        if case .identifier(let name) = current.kind { return name.uppercased() == word }
        return false
    }

    mutating func expect(_ symbol: String) throws {
        guard isSymbol(symbol) else { throw error("expected '\(symbol)' here, found \(describe(current))") }
        position += 1
    }

    func expectEnd() throws {
        guard current.kind == .end else { throw error("unexpected \(describe(current)) after a complete expression") }
    }

    func describe(_ token: ExpressionLexer.Token) -> String {
        switch token.kind {
        case .number(let text), .identifier(let text): return "'\(text)'"
        case .string(let text): return "the string \"\(text)\""
        case .escaped(let name): return "'#\(name)'"
        case .variable(let name): return "'$\(name)'"
        case .collectionOperator(let name): return "'@\(name)'"
        case .symbol(let symbol): return "'\(symbol)'"
        case .end: return "the end of the expression"
        }
    }

    /// How deep an expression tree may be. Everything that walks one (printing, checking,
    /// evaluating, compiling to SQL) recurses, so a deeper tree could overflow the stack.
    static let maximumDepth = 200

    func tooDeep() -> ExpressionError {
        error("the expression is nested too deeply or has too many operators in a row (at most \(Self.maximumDepth))")
    }

    mutating func nested<T>(_ body: (inout ExpressionParser) throws -> T) throws -> T {
        depth += 1
        defer { depth -= 1 }
        guard depth < Self.maximumDepth else { throw tooDeep() }
        return try body(&self)
    }

    // MARK: Expressions

    /// `a + b - c …`: each operator deepens the (left-leaning) tree by one, so each counts
    /// towards ``maximumDepth`` as a parenthesis would: `1+1+…+1` cannot make a tree too deep
    /// to print.
    mutating func additive() throws -> Expression {
        var result = try multiplicative()
        var links = 0
        defer { depth -= links }
        while isSymbol("+") || isSymbol("-") {
            let op: Expression.ArithmeticOperator = isSymbol("+") ? .add : .subtract
            links += 1
            depth += 1
            guard depth < Self.maximumDepth else { throw tooDeep() }
            position += 1
            result = .arithmetic(op, result, try multiplicative())
        }
        return result
    }

    /// `a * b / c …`, counted like ``additive()``.
    mutating func multiplicative() throws -> Expression {
        var result = try power()
        var links = 0
        defer { depth -= links }
        while isSymbol("*") || isSymbol("/") {
            let op: Expression.ArithmeticOperator = isSymbol("*") ? .multiply : .divide
            links += 1
            depth += 1
            guard depth < Self.maximumDepth else { throw tooDeep() }
            position += 1
            result = .arithmetic(op, result, try power())
        }
        return result
    }

    /// `a ** b ** …` (`raise:toPower:`), binding tighter than `*`, counted like ``additive()``.
    mutating func power() throws -> Expression {
        var result = try unary()
        var links = 0
        defer { depth -= links }
        while isSymbol("**") {
            links += 1
            depth += 1
            guard depth < Self.maximumDepth else { throw tooDeep() }
            position += 1
            result = .arithmetic(.power, result, try unary())
        }
        return result
    }

    mutating func unary() throws -> Expression {
        if isSymbol("-") {
            position += 1
            return try nested { parser in
                let operand = try parser.unary()
                if case .constant(.integer(let number)) = operand { return .constant(.integer(-number)) }
                if case .constant(.double(let number)) = operand { return .constant(.double(-number)) }
                return .negate(operand)
            }
        }
        return try postfix()
    }

    mutating func postfix() throws -> Expression {
        var base = try nested { try $0.primary() }
        var path: [String] = []
        var pendingOperator: ExpressionLexer.Token?
        while isSymbol(".") {
            position += 1
            switch current.kind {
            case .identifier(let name):
                guard !ExpressionLexer.isReserved(name) else {
                    throw error("'\(name)' is a reserved word; write #\(name) to use it as a key")
                }
                path.append(name)
            case .escaped(let name): path.append(name)
            case .collectionOperator(let name):
                guard
                    [
                        "count", "sum", "avg", "min", "max", "distinctUnionOfSets", "distinctUnionOfObjects",
                        "unionOfObjects",
                        "unionOfSets", "distinctUnionOfArrays", "unionOfArrays",
                    ].contains(name)
                else {
                    throw error("unknown collection operator '@\(name)'")
                }
                path.append("@" + name)
                pendingOperator = name == "count" ? nil : current
                position += 1
                continue
            default: throw error("expected a key after '.', found \(describe(current))")
            }
            pendingOperator = nil
            position += 1
        }
        if let pendingOperator, case .collectionOperator(let name) = pendingOperator.kind {
            throw error("@\(name) must be followed by a key (for example @\(name).price)", at: pendingOperator)
        }
        guard !path.isEmpty else { return base }
        if case .keyPath(let inner, let innerPath) = base {
            base = .keyPath(inner, innerPath + path)
        } else {
            base = .keyPath(base, path)
        }
        return base
    }

    mutating func primary() throws -> Expression {
        let token = current
        switch token.kind {
        case .number(let text):
            position += 1
            return try number(text, at: token)
        case .string(let value):
            position += 1
            return .constant(.string(value))
        case .variable(let name):
            position += 1
            return .variable(name)
        case .escaped(let name):
            position += 1
            return .keyPath(.evaluatedObject, [name])
        case .collectionOperator:
            throw error("a collection operator must follow a key path")
        case .identifier(let name):
            position += 1
            return try word(name, at: token)
        case .symbol("("):
            position += 1
            let inner = try nested { try $0.additive() }
            try expect(")")
            return inner
        case .symbol("{"):
            position += 1
            return try aggregate()
        default:
            throw error("expected a value, a key path or $variable, found \(describe(token))", at: token)
        }
    }

    /// A number: an integer when it is one, else a finite double.
    func number(_ text: String, at token: ExpressionLexer.Token) throws -> Expression {
        if let integer = Int64(text) { return .constant(.integer(integer)) }
        guard let number = Double(text) else { throw error("'\(text)' is not a number", at: token) }
        // Swift reads 1e999 as infinity; Core Data's parser has no such number either.
        guard number.isFinite else {
            throw error("'\(text)' is past the range of a Double (about ±1.8e308); write a smaller number", at: token)
        }
        return .constant(.double(number))
    }

    /// A word: a constant, `SELF`, `FUNCTION(…)`, `TERNARY(…)`, a built-in function, or a key.
    mutating func word(_ name: String, at token: ExpressionLexer.Token) throws -> Expression {
        switch name.uppercased() {
        case "TRUE", "YES": return .constant(.bool(true))
        case "FALSE", "NO": return .constant(.bool(false))
        case "NIL", "NULL": return .constant(.null)
        case "SELF": return .evaluatedObject
        case "FUNCTION": return try function(at: token)
        case "TERNARY" where isSymbol("("): return try ternary()
        case "CAST" where isSymbol("("): return try cast(at: token)
        default: break
        }
        if isSymbol(":") || isSymbol("(") {
            return try builtin(name, at: token)
        }
        guard !ExpressionLexer.isReserved(name) else {
            throw error("'\(name)' is a reserved word; write #\(name) to use it as a key", at: token)
        }
        return .keyPath(.evaluatedObject, [name])
    }

    /// `{a, b, …}` after its `{`.
    mutating func aggregate() throws -> Expression {
        var items: [Expression] = []
        if !isSymbol("}") {
            repeat {
                if isSymbol(",") { position += 1 }
                items.append(try nested { try $0.additive() })
            } while isSymbol(",")
        }
        try expect("}")
        return .aggregate(items)
    }

    mutating func arguments() throws -> [Expression] {
        try expect("(")
        var items: [Expression] = []
        if !isSymbol(")") {
            items.append(try nested { try $0.additive() })
            while isSymbol(",") {
                position += 1
                items.append(try nested { try $0.additive() })
            }
        }
        try expect(")")
        return items
    }

    mutating func function(at token: ExpressionLexer.Token) throws -> Expression {
        let items = try arguments()
        guard items.count >= 2, case .constant(.string(let selector)) = items[1] else {
            throw error(
                "FUNCTION needs a receiver and a selector string: FUNCTION($manager, \"selector:\", …)", at: token)
        }
        return .function(items[0], selector, Array(items.dropFirst(2)))
    }

    /// `TERNARY(predicate, a, b)` after the word: the predicate is parsed exactly as a filter is.
    mutating func ternary() throws -> Expression {
        try expect("(")
        let predicate = try nested { try $0.orPredicate() }
        guard isSymbol(",") else {
            throw error(
                """
                expected ',' after the predicate of TERNARY(predicate, value if true, value if false), found \
                \(describe(current))
                """
            )
        }
        position += 1
        let whenTrue = try nested { try $0.additive() }
        try expect(",")
        let whenFalse = try nested { try $0.additive() }
        try expect(")")
        return .conditional(predicate, whenTrue, whenFalse)
    }

    /// `CAST(value, "Type")`, NSExpression's conversion: to `NSNumber`, `NSString` or `NSDate`,
    /// or to `Class`, which names an app's class for a `FUNCTION` to call.
    mutating func cast(at token: ExpressionLexer.Token) throws -> Expression {
        let items = try arguments()
        guard items.count == 2, case .constant(.string) = items[1] else {
            throw error("CAST needs a value and a type name: CAST(value, \"NSNumber\")", at: token)
        }
        return .builtin("CAST", items)
    }

    /// A built-in function by its selector (``BuiltinFunction``), written `sqrt(x)`, `now()`, Core
    /// Data's `count:(x)`, or a selector of several parts, `multiply:by:(a, b)` (what an archived
    /// mapping model holds, and what Chrysalis prints it as); the arithmetic ones become
    /// ``Expression/arithmetic(_:_:_:)`` and `castObject:toType:` is `CAST`.
    mutating func builtin(_ name: String, at token: ExpressionLexer.Token) throws -> Expression {
        var selector = BuiltinFunction.selector(forFunctionNamed: name)
        if isSymbol(":") {
            position += 1
            selector = name + ":"
            while case .identifier(let part) = current.kind, tokens.indices.contains(position + 1),
                tokens[position + 1].kind == .symbol(":")
            {
                selector += part + ":"
                position += 2
            }
        }
        let items = try arguments()
        if let reason = BuiltinFunction.refused[selector] {
            throw error("\(selector) cannot be evaluated in a migration: \(reason)", at: token)
        }
        if selector == "castObject:toType:" {
            guard items.count == 2, case .constant(.string) = items[1] else {
                throw error("castObject:toType: needs a value and a type name", at: token)
            }
            return .builtin("CAST", items)
        }
        let count = BuiltinFunction.arithmetic[selector] != nil ? 2 : BuiltinFunction.arity[selector]
        guard let count else {
            let known = (Array(BuiltinFunction.arity.keys) + Array(BuiltinFunction.arithmetic.keys)).sorted()
            throw error(
                "unknown function '\(selector)'; NSExpression's are: \(known.joined(separator: ", "))", at: token)
        }
        guard items.count == count else {
            throw error(
                "\(selector) takes \(count) argument\(count == 1 ? "" : "s"), not \(items.count)", at: token)
        }
        if let op = BuiltinFunction.arithmetic[selector] { return .arithmetic(op, items[0], items[1]) }
        return .builtin(selector, items)
    }
}
