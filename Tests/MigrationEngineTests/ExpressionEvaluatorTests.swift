import SQLiteStore
import Testing

@testable import MigrationEngine

/// Key paths through objects and collection operators, on a small graph of countries and moods.
@Suite struct ExpressionEvaluatorTests {
    /// Continent 1 has countries 2 and 3; their moods are 10, 11 and 10 again (shared).
    struct Graph: ExpressionContext {
        func variable(_ name: String) throws -> ExpressionValue {
            name == "source" ? .object(ref(1)) : .null
        }
        func value(of object: ObjectRef, key: String) throws -> ExpressionValue {
            switch (object.id.primaryKey, key) {
            case (1, "countries"): return .collection([.object(ref(2)), .object(ref(3))])
            case (1, "name"): return .value(.string("Europe"))
            case (2, "moods"): return .collection([.object(ref(10)), .object(ref(11))])
            case (3, "moods"): return .collection([.object(ref(10))])
            case (2, "population"): return .value(.integer(5))
            case (3, "population"): return .value(.integer(7))
            case (_, "population"): return .null
            default: throw EvaluationError("no key \(key)")
            }
        }
        func call(_ receiver: ExpressionValue, _ selector: String, _ arguments: [ExpressionValue]) throws
            -> ExpressionValue
        {
            .value(.string(selector))
        }
        func ref(_ key: Int64) -> ObjectRef { ObjectRef(side: .source, id: ObjectID(entityNumber: 1, primaryKey: key)) }
    }

    func evaluate(_ text: String) throws -> ExpressionValue {
        try ExpressionEvaluator(context: Graph()).evaluate(try ExpressionParser.expression(text))
    }

    @Test func collectionOperators() throws {
        #expect(try evaluate("$source.countries.@count") == .value(.integer(2)))
        #expect(try evaluate("$source.countries.@sum.population") == .value(.double(12)))
        #expect(try evaluate("$source.countries.@avg.population") == .value(.double(6)))
        #expect(try evaluate("$source.countries.@distinctUnionOfSets.moods").objects.map(\.id.primaryKey) == [10, 11])
        #expect(
            try evaluate("$source.countries.@unionOfObjects.population")
                == .collection([.value(.integer(5)), .value(.integer(7))]))
        #expect(try evaluate("count:($source.countries)") == .value(.integer(2)))
    }

    @Test func arithmeticAndNil() throws {
        #expect(try evaluate("2 + 3 * 4") == .value(.integer(14)))
        #expect(try evaluate("(7 - 32.0) / 1.8") == .value(.double((7 - 32.0) / 1.8)))
        #expect(try evaluate("nil + 1") == .null, "nil stays nil, as in SQL")
        #expect(throws: EvaluationError.self) { try evaluate("1 / 0") }
        #expect(throws: EvaluationError.self) { try evaluate("$source.name * 2") }
        #expect(try evaluate("uppercase:($source.name)") == .value(.string("EUROPE")))
    }

    @Test func onlyAllowedFunctionsRun() throws {
        #expect(throws: EvaluationError.self) { try evaluate(#"FUNCTION($source, "performSelector:", "x")"#) }
        #expect(try evaluate(#"FUNCTION($source.name, "uppercaseString")"#) == .value(.string("uppercaseString")))
    }
}
