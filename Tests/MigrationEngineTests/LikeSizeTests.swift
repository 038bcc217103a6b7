import Foundation
import ObjectModel
import SQLiteStore
import Testing

@testable import MigrationEngine

/// `LIKE` at every size a store can hold: no text crashes a filter or an expression, and the
/// matcher agrees with a regular expression on many small random cases.
@Suite struct LikeSizeTests {
    /// One object whose `body` is the text given.
    struct Page: ExpressionContext {
        let body: String
        func variable(_ name: String) throws -> ExpressionValue { name == "source" ? .object(ref) : .null }
        func value(of object: ObjectRef, key: String) throws -> ExpressionValue {
            guard key == "body" else { throw EvaluationError("no key \(key)") }
            return .value(.string(body))
        }
        func call(_ receiver: ExpressionValue, _ selector: String, _ arguments: [ExpressionValue]) throws
            -> ExpressionValue
        { .null }
        var ref: ObjectRef { ObjectRef(side: .source, id: ObjectID(entityNumber: 1, primaryKey: 1)) }
    }

    private func matches(_ body: String, _ pattern: String) throws -> Bool {
        let page = Page(body: body)
        let value = try ExpressionEvaluator(context: page, evaluatedObject: .object(page.ref))
            .evaluate(try ExpressionParser.expression("TERNARY($source.body LIKE \"\(pattern)\", 1, 0)"))
        return value == .value(.integer(1))
    }

    private func holds(_ body: String, _ predicate: String) throws -> Bool {
        let page = Page(body: body)
        let value = try ExpressionEvaluator(context: page, evaluatedObject: .object(page.ref))
            .evaluate(try ExpressionParser.expression("TERNARY(\(predicate), 1, 0)"))
        return value == .value(.integer(1))
    }

    /// A recursive matcher took a stack frame per character: 64 KB crashed the process. The
    /// other string comparisons are walked at the same sizes.
    @Test(arguments: [0, 1, 65_536, 1 << 20, 100 << 20])
    func everySizeIsMatchedWithoutCrashing(bytes: Int) throws {
        let body =
            String(repeating: "a", count: max(0, bytes - 2))
            + (bytes >= 2 ? "xy" : String(repeating: "a", count: bytes))
        #expect(try matches(body, "*x?") == (bytes >= 2))
        #expect(try holds(body, #"$source.body ENDSWITH "xy""#) == (bytes >= 2))
        #expect(try holds(body, #"$source.body CONTAINS "ax""#) == (bytes >= 3))
        #expect(try holds(body, #"$source.body BEGINSWITH "b""#) == false)
        // The slower shapes up to a megabyte: at 100 MB one walk is the point (debug builds
        // walk about 10 MB a second).
        guard bytes <= 1 << 20 else { return }
        #expect(try matches(body, "*") == true)
        #expect(try matches(body, "a*a*a*z") == false)
        #expect(try matches(body, "?*") == (bytes >= 1))
        // `[cd]` folds case and diacritics, so the one-letter text "a" equals "Ä".
        #expect(try holds(body, #"$source.body ==[cd] "Ä""#) == (bytes == 1))
        #expect(try holds(body, #"$source.body LIKE[c] "*XY""#) == (bytes >= 2))
    }

    /// The string keys and functions a value expression may apply to an attribute (`length`,
    /// `uppercaseString`, `lowercaseString`, `+` on text) at every size: linear, no crash.
    @Test(arguments: [0, 1, 65_536, 1 << 20, 100 << 20])
    func stringKeysTakeEverySize(bytes: Int) throws {
        let body = String(repeating: "aé", count: bytes / 3) + String(repeating: "a", count: bytes % 3)
        let page = Page(body: body)
        let evaluator = ExpressionEvaluator(context: page, evaluatedObject: .object(page.ref))
        #expect(
            try evaluator.evaluate(try ExpressionParser.expression("$source.body.length"))
                == .value(.integer(Int64(body.utf16.count))))
        let upper = try evaluator.evaluate(try ExpressionParser.expression("$source.body.uppercaseString"))
        #expect(upper == .value(.string(body.uppercased())))
        let lower = try evaluator.evaluate(try ExpressionParser.expression("$source.body.lowercaseString.length"))
        #expect(lower == .value(.integer(Int64(body.utf16.count))))
    }

    @Test func agreesWithARegularExpressionOnRandomCases() throws {
        var generator = SystemRandomNumberGenerator()
        let letters: [Character] = ["a", "b", "é"], wild: [Character] = ["a", "b", "é", "*", "?"]
        for _ in 0..<3_000 {
            let text = String(
                (0..<Int.random(in: 0...8, using: &generator)).map { _ in letters.randomElement(using: &generator)! })
            let pattern = String(
                (0..<Int.random(in: 0...6, using: &generator)).map { _ in wild.randomElement(using: &generator)! })
            let regex =
                "^"
                + pattern.map {
                    $0 == "*" ? ".*" : $0 == "?" ? "." : NSRegularExpression.escapedPattern(for: String($0))
                }.joined() + "$"
            let expected = text.range(of: regex, options: .regularExpression) != nil
            #expect(PredicateEvaluator.like(text, pattern) == expected, "\(text) LIKE \(pattern)")
        }
    }
}
