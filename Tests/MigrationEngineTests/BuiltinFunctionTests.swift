import Foundation
import SQLiteStore
import Testing

@testable import MigrationEngine

/// NSExpression's built-in functions as Foundation documents them, one test each, in both the
/// forms text writes them (`sqrt(9)`, `multiply:by:(a, b)`, what an archived mapping model is
/// printed as), and the predicate operator `MATCHES`; the functions no migration can evaluate
/// are refused naming why.
@Suite struct BuiltinFunctionTests {
    /// No objects: the functions take constants and aggregates.
    struct Constants: ExpressionContext {
        func variable(_ name: String) throws -> ExpressionValue { .null }
        func value(of object: ObjectRef, key: String) throws -> ExpressionValue { .null }
        func call(_ receiver: ExpressionValue, _ selector: String, _ arguments: [ExpressionValue]) throws
            -> ExpressionValue
        { .null }
    }

    func value(_ text: String) throws -> ExpressionValue {
        try ExpressionEvaluator(context: Constants()).evaluate(try ExpressionParser.expression(text))
    }

    func number(_ text: String) throws -> Double? { try value(text).number }

    @Test func arithmeticSelectorsAreTheOperators() throws {
        #expect(
            try ExpressionParser.expression("multiply:by:($source.length, 0.2)").description == "$source.length * 0.2")
        #expect(try value("add:to:(2, 3)") == .value(.integer(5)))
        #expect(try value("from:subtract:(2, 3)") == .value(.integer(-1)))
        #expect(try value("multiply:by:(4, 2.5)") == .value(.double(10)))
        #expect(
            try value("divide:by:(7, 2)") == .value(.integer(3)), "two integers divide as integers, as in Foundation")
        #expect(try value("1 / 2") == .value(.integer(0)))
        #expect(try value("1.0 / 2") == .value(.double(0.5)))
        #expect(try value("raise:toPower:(2, 10)") == .value(.double(1024)))
        #expect(try value("2 ** 3 * 2") == .value(.double(16)), "** binds tighter than *")
    }

    @Test func statistics() throws {
        #expect(try value("average({1, 2, 3})") == .value(.double(2)))
        #expect(try value("sum:({1, 2, 3})") == .value(.double(6)))
        #expect(try value("count({1, 2, 3})") == .value(.integer(3)))
        #expect(try value("min({4, 2, 3})") == .value(.double(2)))
        #expect(try value("max({4, 2, 3})") == .value(.double(4)))
        #expect(try value("median({3, 1, 2})") == .value(.double(2)))
        #expect(try value("median({4, 1, 2, 3})") == .value(.double(2.5)))
        #expect(try value("mode({1, 2, 3, 3})") == .collection([.value(.double(3))]), "mode: is an array")
        #expect(try number("stddev({2, 4, 4, 4, 5, 5, 7, 9})") == 2, "the population's standard deviation")
    }

    @Test func numbers() throws {
        #expect(try number("sqrt(9)") == 3)
        #expect(try number("log(1000)") == 3, "base 10")
        #expect(try number("ln(1)") == 0)
        #expect(try number("exp(0)") == 1)
        #expect(try number("ceiling(3.3)") == 4)
        #expect(try number("floor(-3.3)") == -4)
        #expect(try number("trunc(-3.7)") == -3)
        #expect(try value("abs(-4)") == .value(.integer(4)))
        #expect(try value("modulus:by:(7, 2)") == .value(.integer(1)))
        #expect(try value("modulus:by:(-7, 2)") == .value(.integer(-1)), "the dividend's sign")
        #expect(try number("modulus:by:(7.5, 2)") == 1.5)
        #expect(throws: EvaluationError.self) { try value("modulus:by:(7, 0)") }
        #expect(throws: EvaluationError.self) { try value("sqrt(-1)") }
    }

    @Test func bits() throws {
        #expect(try value("bitwiseAnd:with:(6, 3)") == .value(.integer(2)))
        #expect(try value("bitwiseOr:with:(6, 3)") == .value(.integer(7)))
        #expect(try value("bitwiseXor:with:(6, 3)") == .value(.integer(5)))
        #expect(try value("leftshift:by:(23, 1)") == .value(.integer(46)))
        #expect(try value("rightshift:by:(23, 1)") == .value(.integer(11)))
        #expect(try value("onesComplement(255)") == .value(.integer(~255)))
        #expect(throws: EvaluationError.self) { try value("bitwiseAnd:with:(1.5, 3)") }
    }

    @Test func textDatesRandomAndTheRest() throws {
        #expect(try value("uppercase('ab')") == .value(.string("AB")))
        #expect(try value("lowercase('AB')") == .value(.string("ab")))
        #expect(try value("length('é👍')") == .value(.integer(3)), "NSString's length counts UTF-16 units")
        #expect(try value("noindex(5)") == .value(.integer(5)))
        #expect(try value("objectFrom:withIndex:({'a', 'b'}, 1)") == .value(.string("b")))
        let random = try #require(try number("random()"))
        #expect(random >= 0 && random < 1)
        guard case .value(.integer(let bounded)) = try value("randomn(10)") else {
            Issue.record("randomn: is an integer")
            return
        }
        #expect((0..<10).contains(bounded))
        guard case .value(.date(let date)) = try value("now()") else {
            Issue.record("now is a date")
            return
        }
        #expect(abs(date.timeIntervalSinceNow) < 60)
    }

    @Test func functionsNoMigrationCanEvaluateAreRefusedNamingWhy() throws {
        for text in ["distanceToLocation:fromLocation:(1, 2)", "distinct({1})"] {
            #expect {
                try ExpressionParser.expression(text)
            } throws: { error in
                "\(error)".contains("cannot be evaluated in a migration")
            }
        }
        #expect {
            try ExpressionParser.expression("frobnicate(1)")
        } throws: { error in
            "\(error)".contains("unknown function 'frobnicate:'") && "\(error)".contains("multiply:by:")
        }
        #expect {
            try ExpressionParser.expression("modulus:by:(1)")
        } throws: { error in
            "\(error)".contains("takes 2 arguments, not 1")
        }
    }

    @Test func matchesIsAWholeStringRegularExpression() throws {
        let evaluator = ExpressionEvaluator(context: Constants())
        func holds(_ text: String) throws -> Bool { try evaluator.matches(try ExpressionParser.predicate(text)) }
        #expect(try holds("'Harold' MATCHES '[a-hA-H].*'"))
        #expect(try !holds("'Harold' MATCHES 'Har'"), "the whole string, not a part")
        #expect(try holds("'harold' MATCHES[c] 'HAR.*'"))
        #expect(try !holds("nil MATCHES '.*'"))
        #expect(throws: EvaluationError.self) { try holds("'a' MATCHES '('") }
    }

    /// `[c]` folds case and `[d]` diacritics, beyond ASCII, as Foundation's comparisons do; `[n]`
    /// compares the strings as they are (`NSNormalizedPredicateOption`: already folded).
    @Test func comparisonOptionsFoldCaseAndDiacritics() throws {
        let evaluator = ExpressionEvaluator(context: Constants())
        func holds(_ text: String) throws -> Bool { try evaluator.matches(try ExpressionParser.predicate(text)) }
        #expect(try holds("'Éclair' ==[c] 'éCLAIR'"))
        #expect(try !holds("'Éclair' ==[c] 'eclair'"), "case folded, accents kept")
        #expect(try holds("'Éclair' ==[d] 'Eclair'"))
        #expect(try !holds("'Éclair' ==[d] 'eclair'"), "accents folded, case kept")
        #expect(try holds("'Éclair' BEGINSWITH[cd] 'ecl'"))
        #expect(try holds("'Crème brûlée' CONTAINS[d] 'brulee'"))
        #expect(try holds("'Ångström' LIKE[cd] 'angs*'"))
        #expect(try holds("'Zoë' IN[d] {'Anna', 'Zoe'}"))
        #expect(try holds("'Ærøskøbing' MATCHES[cd] 'ærø.*'"))
        #expect(try holds("'Zoë' MATCHES[d] 'Zoe'"))
        #expect(try !holds("'Zoë' ==[n] 'Zoe'"), "[n] folds nothing")
        #expect(try holds("'zoe' ==[n] 'zoe'"))
        #expect(try !holds("'Zoë' ==[cdn] 'zoe'"), "[n] supersedes [c] and [d]")
        let parsed = try ExpressionParser.predicate("name ==[cd] 'a'")
        #expect(parsed.description == #"name ==[cd] "a""#)
    }
}
