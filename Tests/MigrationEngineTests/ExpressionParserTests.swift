import MigrationEngine
import SQLiteStore
import Testing

/// Core Data's expression syntax: the cases of worked-examples §3 and the errors around them.
@Suite struct ExpressionParserTests {
    @Test(arguments: [
        ("$source.amount", "$source.amount"),
        ("($source.temperature - 32.0) / 1.8", "($source.temperature - 32.0) / 1.8"),
        ("$source.salary * 1.04", "$source.salary * 1.04"),
        (
            #"FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "TradeToTrade", $source.trades)"#,
            #"FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "TradeToTrade", $source.trades)"#
        ),
        ("$source.#size", "$source.#size"),
        ("$source.country.continent", "$source.country.continent"),
        ("$source.countries.@distinctUnionOfSets.moods", "$source.countries.@distinctUnionOfSets.moods"),
        ("count:(pages)", "count:(pages)"),
        ("-$source.price + 2 * 3", "-$source.price + 2 * 3"),
        ("$source.a - ($source.b - 1)", "$source.a - ($source.b - 1)"),
        ("$source.items.@count", "$source.items.@count"),
        ("YES", "YES"), ("nil", "nil"), (#""it's \"quoted\"""#, #""it's \"quoted\"""#),
        (
            #"TERNARY($source.name == nil, "unnamed", $source.name)"#,
            #"TERNARY($source.name == nil, "unnamed", $source.name)"#
        ),
        (#"ternary(a != NULL && b IN {1, 2}, 1, 2)"#, #"TERNARY((a != nil) AND (b IN {1, 2}), 1, 2)"#),
    ])
    func parsesAndPrintsBack(text: String, printed: String) throws {
        let expression = try ExpressionParser.expression(text)
        #expect(expression.description == printed)
        #expect(try ExpressionParser.expression(expression.description) == expression, "printing is a fixed point")
    }

    @Test func structureOfTheTemperatureConversion() throws {
        let expression = try ExpressionParser.expression("($source.temperature - 32.0) / 1.8")
        #expect(
            expression
                == .arithmetic(
                    .divide,
                    .arithmetic(.subtract, .keyPath(.variable("source"), ["temperature"]), .constant(.double(32))),
                    .constant(.double(1.8))))
        #expect(try ExpressionParser.expression("$source.#size") == .keyPath(.variable("source"), ["size"]))
    }

    @Test(arguments: [
        ("$source.price *", 16, "expected a value"),
        ("($source.price * 1.04", 22, "expected ')'"),
        ("$source.size", 9, "'size' is a reserved word; write #size"),
        ("$source.@avg", 9, "@avg must be followed by a key"),
        ("@count", 1, "a collection operator must follow a key path"),
        ("$source.price ^ 2", 15, "unexpected character '^'"),
        (#"FUNCTION($manager)"#, 1, "FUNCTION needs a receiver and a selector string"),
        (#""unclosed"#, 1, "is not closed"),
        ("$source.items.@median.price", 15, "unknown collection operator '@median'"),
    ])
    func errorsPointAtTheColumn(text: String, column: Int, message: String) {
        expectParseError(text, column: column, message: message)
    }

    @Test func predicates() throws {
        let predicate = try ExpressionParser.predicate(
            #"price > 10 AND (title BEGINSWITH "The" OR NOT name IN {"a", "b"}) && author LIKE[c] "J*""#)
        guard case .and(let parts) = predicate else { Issue.record("expected AND, got \(predicate)"); return }
        #expect(parts.count == 3)
        #expect(
            parts[0]
                == .comparison(
                    .keyPath(.evaluatedObject, ["price"]), .greater, .constant(.integer(10)), options: []))
        #expect(
            parts[2]
                == .comparison(
                    .keyPath(.evaluatedObject, ["author"]), .like, .constant(.string("J*")), options: .caseInsensitive))
        #expect(try ExpressionParser.predicate("TRUEPREDICATE") == .truePredicate)
        #expect(throws: ExpressionError.self) { try ExpressionParser.predicate("price >") }
    }
}
