import Foundation
import SQLiteStore
import XCTest

@testable import MigrationEngine

/// The inputs the fuzzer (``MappingAndExpressionFuzzTests``) found crashing or hanging the
/// expression parser and evaluator, kept small: each used to trap or overflow the stack.
final class ExpressionHostileInputTests: XCTestCase {
    /// `$source.x` is `Int64.min`, the one integer whose negation and magnitude overflow.
    struct MinimumInteger: ExpressionContext {
        func variable(_ name: String) throws -> ExpressionValue {
            .object(ObjectRef(side: .source, id: ObjectID(entityNumber: 1, primaryKey: 1)))
        }
        func value(of object: ObjectRef, key: String) throws -> ExpressionValue { .value(.integer(.min)) }
        func call(_ receiver: ExpressionValue, _ selector: String, _ arguments: [ExpressionValue]) throws
            -> ExpressionValue
        { .null }
    }

    func evaluate(_ text: String) throws -> ExpressionValue {
        try ExpressionEvaluator(context: MinimumInteger()).evaluate(try ExpressionParser.expression(text))
    }

    /// Found as `abs:($source.x)`: `abs(Int64.min)` trapped. Like overflowing arithmetic, the
    /// result becomes a double.
    func testNegatingOrTakingTheMagnitudeOfTheSmallestIntegerGivesADouble() throws {
        XCTAssertEqual(try evaluate("abs:($source.x)"), .value(.double(9_223_372_036_854_775_808)))
        XCTAssertEqual(try evaluate("-$source.x"), .value(.double(9_223_372_036_854_775_808)))
        XCTAssertEqual(try evaluate("abs:(-5)"), .value(.integer(5)), "ordinary integers stay integers")
        XCTAssertEqual(try evaluate("-(2 + 3)"), .value(.integer(-5)))
    }

    /// Found as `$source.price` evaluating to infinity for an Integer 64 attribute: the
    /// conversion trapped. Now it is a value the attribute cannot hold, which stage 1 reports.
    func testANumberAnIntegerAttributeCannotHoldIsRefusedNotATrap() {
        for number in [Double.infinity, -.infinity, .nan, 1e300, 9_223_372_036_854_775_808] {
            XCTAssertNil(ExpressionValue.value(.double(number)).storeValue(for: .integer), "\(number)")
        }
        XCTAssertNil(ExpressionValue.value(.double(.nan)).storeValue(for: .decimal))
        XCTAssertNil(ExpressionValue.value(.double(.infinity)).storeValue(for: .decimal))
        XCTAssertEqual(
            ExpressionValue.value(.double(-3.7)).storeValue(for: .integer), .integer(-3), "truncates as before")
        XCTAssertEqual(ExpressionValue.value(.double(2.5)).storeValue(for: .decimal), .decimal(Decimal(string: "2.5")!))
    }

    /// Found as `… * -1111-9223372036854775808-9223372036854775808…` (tens of thousands of
    /// operators): the left-leaning tree overflowed the stack when printed. Operators in a row
    /// now count towards the nesting limit.
    func testALongOperatorChainIsRefusedInsteadOfOverflowingTheStack() throws {
        for op in ["+", "-", "*", "/"] {
            let text = "1" + String(repeating: "\(op)1", count: 4_000)
            XCTAssertThrowsError(try ExpressionParser.expression(text), op) { error in
                XCTAssertTrue(
                    (error as? ExpressionError)?.message.contains("too many operators in a row (at most 200)") == true,
                    "\(error)")
            }
            XCTAssertThrowsError(try ExpressionParser.predicate(text + " == 1"), op)
        }
        let long = "$source.price" + String(repeating: " + 1", count: 150)
        XCTAssertEqual(
            try ExpressionParser.expression(long).description, long, "a long but sane chain still parses and prints")
    }

    /// Found as `count:(` repeated 100,000 times: seconds of tokenizing before the nesting
    /// limit could refuse it. Text longer than any real expression is refused up front.
    func testAMegabyteOfExpressionIsRefusedUpFront() {
        let text = String(repeating: "count:(", count: 100_000)
        XCTAssertThrowsError(try ExpressionParser.expression(text)) { error in
            XCTAssertTrue("\(error)".contains("expressions are limited to 10000"), "\(error)")
            XCTAssertLessThan("\(error)".count, 300, "the error does not repeat the megabyte")
        }
        XCTAssertThrowsError(try ExpressionParser.predicate(text))
    }
}
