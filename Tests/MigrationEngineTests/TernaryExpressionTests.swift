import Foundation
import GRDB
import ObjectModel
import TestSupport
import Testing

@testable import MigrationEngine
@testable import SQLiteStore

/// `TERNARY(predicate, a, b)`: parsed with the filter's predicate grammar, evaluated by the
/// filter's evaluator, compiled to `CASE WHEN` where SQL gives exactly the evaluator's answer,
/// and read from Xcode's archived `NSTernaryExpression`.
@Suite struct TernaryExpressionTests {
    // MARK: Parsing

    @Test(arguments: [
        #"TERNARY($source.name == nil, "unnamed", $source.name)"#,
        #"TERNARY(price > 10 AND NOT name BEGINSWITH[c] "a", 1, 2)"#,
        #"TERNARY(status IN {1, 2} || TRUEPREDICATE, $source.a * 2, -1)"#,
        #"TERNARY(!(a == nil) && (b CONTAINS "x" OR b ENDSWITH "y"), TERNARY(FALSEPREDICATE, 1, 2), nil)"#,
        #"FUNCTION(TERNARY($source.a <= 1, "a", "b"), "stringByAppendingString:", "!") "#,
        #"TERNARY($source.a != NULL, $source.a, 0) + 1"#,
    ])
    func printingIsAFixedPoint(text: String) throws {
        let expression = try ExpressionParser.expression(text)
        #expect(try ExpressionParser.expression(expression.description) == expression, "\(expression)")
    }

    @Test func structureOfANilTest() throws {
        let source = Expression.keyPath(.variable("source"), ["name"])
        #expect(
            try ExpressionParser.expression(#"TERNARY($source.name == nil, "unnamed", $source.name)"#)
                == .conditional(
                    .comparison(source, .equal, .constant(.null), options: []),
                    .constant(.string("unnamed")), source))
        #expect(
            try ExpressionParser.expression("$source.ternary") == .keyPath(.variable("source"), ["ternary"]),
            "TERNARY is a word only before (")
    }

    @Test(arguments: [
        ("TERNARY($source.a == 1, 2)", 26, "expected ','"),
        ("TERNARY($source.a == 1 2, 3)", 24, "expected ',' after the predicate of TERNARY"),
        ("TERNARY($source.a, 1, 2)", 18, "expected a comparison"),
        ("TERNARY($source.a == 1, 2, 3", 29, "expected ')'"),
        ("TERNARY($source.a BETWEEN {1, 2}, 1, 2)", 19, "expected a comparison"),
    ])
    func errorsPointAtTheColumn(text: String, column: Int, message: String) {
        expectParseError(text, column: column, message: message)
    }

    /// Predicates inside expressions inside predicates: a parenthesis that could open either is
    /// tried as a predicate once per position, not once per way of reaching it (which was 2^60
    /// attempts for the first text).
    @Test(arguments: [
        String(repeating: "TERNARY(NOT (", count: 60), String(repeating: "TERNARY((", count: 90) + "a == 1",
        "TERNARY(" + String(repeating: "(", count: 95) + "1" + String(repeating: ")", count: 95) + " == 1, 1, 2",
        String(repeating: "TERNARY(!(a == 1) || (", count: 40),
    ])
    func nestedParenthesesAreRefusedQuickly(text: String) {
        #expect(throws: ExpressionError.self) { try ExpressionParser.expression(text) }
        #expect(throws: ExpressionError.self) { try ExpressionParser.predicate(text + " == 1") }
    }

    @Test func deepButValidNestingStillParses() throws {
        let nested =
            "TERNARY(" + String(repeating: "(", count: 40) + "$source.a == 1" + String(repeating: ")", count: 40)
            + ", 1, 2)"
        #expect(try ExpressionParser.expression(nested) == ExpressionParser.expression("TERNARY($source.a == 1, 1, 2)"))
        let chain = String(repeating: "TERNARY(NOT (a == 1), ", count: 30) + "0" + String(repeating: ", 1)", count: 30)
        #expect(throws: Never.self) { try ExpressionParser.expression(chain) }
    }

    // MARK: Evaluating

    /// Object 1: name "Abacus", nothing under `missing`, `""` under `empty`, n = 5, and tags
    /// 2 ("red") and 3 ("Rare").
    struct Shop: ExpressionContext {
        func variable(_ name: String) throws -> ExpressionValue { name == "source" ? .object(ref(1)) : .null }
        func value(of object: ObjectRef, key: String) throws -> ExpressionValue {
            switch (object.id.primaryKey, key) {
            case (1, "name"): return .value(.string("Abacus"))
            case (1, "missing"): return .null
            case (1, "empty"): return .value(.string(""))
            case (1, "n"): return .value(.integer(5))
            case (1, "tags"): return .collection([.object(ref(2)), .object(ref(3))])
            case (2, "name"): return .value(.string("red"))
            case (3, "name"): return .value(.string("Rare"))
            default: throw EvaluationError("no key \(key)")
            }
        }
        func call(_ receiver: ExpressionValue, _ selector: String, _ arguments: [ExpressionValue]) throws
            -> ExpressionValue
        { .null }
        func ref(_ key: Int64) -> ObjectRef { ObjectRef(side: .source, id: ObjectID(entityNumber: 1, primaryKey: key)) }
    }

    func branch(_ predicate: String) throws -> Int64? {
        let value = try ExpressionEvaluator(context: Shop(), evaluatedObject: .object(Shop().ref(1)))
            .evaluate(try ExpressionParser.expression("TERNARY(\(predicate), 1, 2)"))
        guard case .value(.integer(let number)) = value else { return nil }
        return number
    }

    @Test(arguments: [
        ("$source.missing == nil", 1), ("$source.name == nil", 2), ("$source.missing != nil", 2), ("nil == NULL", 1),
        (#"$source.name BEGINSWITH "Ab""#, 1), (#"$source.name BEGINSWITH "ab""#, 2),
        (#"$source.name BEGINSWITH[c] "ab""#, 1),
        (#"$source.name ENDSWITH "cus""#, 1), (#"$source.name CONTAINS "bac""#, 1),
        (#"$source.name CONTAINS "BAC""#, 2),
        (#"$source.name CONTAINS """#, 2), (#"$source.empty BEGINSWITH """#, 1),
        (#"$source.missing BEGINSWITH "A""#, 2),
        ("$source.n IN {1, 5}", 1), ("$source.n IN {}", 2), ("$source.missing IN {1, nil}", 1),
        (#""red" IN $source.tags.name"#, 1), (#""RED" IN $source.tags.name"#, 2),
        (#""RED" IN[c] $source.tags.name"#, 1),
        ("$source.missing < 1", 2), ("$source.missing >= 1", 2), ("NOT $source.missing >= 1", 1),
        ("!($source.n > 4)", 2),
        ("$source.n > 4 AND $source.n <= 5", 1), ("$source.n > 5 OR $source.n == 5.0", 1),
        ("TRUEPREDICATE && FALSEPREDICATE", 2),
        (#"$source.name < "abacus""#, 1), (#"$source.name ==[c] "ABACUS""#, 1), (#"$source.name == "ABACUS""#, 2),
    ])
    func evaluatesWithTheFiltersRules(predicate: String, expected: Int64) throws {
        #expect(try branch(predicate) == expected, "\(predicate)")
    }

    @Test func onlyTheBranchTakenIsEvaluated() throws {
        let evaluator = ExpressionEvaluator(context: Shop(), evaluatedObject: .object(Shop().ref(1)))
        #expect(
            try evaluator.evaluate(try ExpressionParser.expression("TERNARY(TRUEPREDICATE, 1, 1 / 0)"))
                == .value(.integer(1)))
        #expect(throws: EvaluationError.self) {
            try evaluator.evaluate(try ExpressionParser.expression("TERNARY(FALSEPREDICATE, 1, 1 / 0)"))
        }
    }

    // MARK: Compiling to SQL

    static func compiler() throws -> ExpressionSQL {
        let model = try ModelXMLReader.read(
            Data(
                """
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" userDefinedModelVersionIdentifier="">
                <entity name="Item"><attribute name="name" optional="YES" attributeType="String"/><attribute name="n" optional="YES" attributeType="Integer 32"/>
                  <attribute name="price" optional="YES" attributeType="Double"/><attribute name="when" optional="YES" attributeType="Date"/>
                  <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="item" inverseEntity="Tag"/></entity>
                <entity name="Tag"><attribute name="name" optional="YES" attributeType="String"/>
                  <relationship name="item" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Item" inverseName="tags" inverseEntity="Item"/></entity>
                </model>
                """.utf8), file: "Items")
        let layout = StoreLayout(model: model)
        return ExpressionSQL(layout: layout, entity: try #require(model.entity(named: "Item")), alias: "s")
    }

    @Test(arguments: [
        #"TERNARY($source.name == nil, "unnamed", $source.name)"#, #"TERNARY(name BEGINSWITH "a", 1, 2)"#,
        #"TERNARY(NOT $source.name ENDSWITH "z" AND n IN {1, 2, nil}, nil, 2)"#,
        #"TERNARY(name CONTAINS "x" OR price < 2.5, YES, NO)"#,
        "TERNARY(TRUEPREDICATE, nil, $source.price * 2)", "TERNARY(n > 1, TERNARY(n > 2, 3, 2), 1) + 1",
        "TERNARY(when < 5, when, nil)",
    ])
    func compiles(text: String) throws {
        #expect(try Self.compiler().compile(try ExpressionParser.expression(text)) != nil, "\(text)")
    }

    @Test(arguments: [
        #"TERNARY(name BEGINSWITH[c] "a", 1, 2)"#, #"TERNARY(name LIKE "a*", 1, 2)"#,
        #"TERNARY("a" IN $source.tags.name, 1, 2)"#,
        #"TERNARY(n > 1, "a", 1)"#, "TERNARY(name == 1, 1, 2)", "TERNARY(n > 1, n, price)",
        #"TERNARY(n IN {1, "a"}, 1, 2)"#,
    ])
    func runsRowByRow(text: String) throws {
        #expect(try Self.compiler().compile(try ExpressionParser.expression(text)) == nil, "\(text)")
    }

    /// Every operator over pairs of nil, numbers and strings that differ by case, prefix and
    /// emptiness, plain and under NOT: where the predicate compiles, SQLite gives the evaluator's answer.
    @Test func compiledConditionsAgreeWithTheEvaluator() throws {
        let compiler = try Self.compiler()
        let database = try DatabaseQueue()
        let texts = ["nil", #""""#, #""a""#, #""A""#, #""ab""#, #""Ab""#, #""ba""#, #""é""#]
        let numbers = ["nil", "1", "2.5", "YES", "-3"]
        let operators = ["==", "!=", "<", "<=", ">", ">=", "BEGINSWITH", "ENDSWITH", "CONTAINS"]
        var compiled = 0
        for values in [texts, numbers] {
            for lhs in values {
                for rhs in values {
                    let predicates =
                        operators.map { "\(lhs) \($0) \(rhs)" } + [
                            "\(lhs) IN {\(rhs), \"b\"}", "\(lhs) IN {\(rhs), 7}",
                        ]
                    for predicate in predicates.flatMap({ [$0, "NOT \($0)"] }) {
                        let expression = try ExpressionParser.expression("TERNARY(\(predicate), 1, 0)")
                        guard let fragment = compiler.compile(expression) else { continue }
                        compiled += 1
                        let sql = try database.read { db in
                            try Int64.fetchOne(
                                db, sql: "SELECT \(fragment.sql)",
                                arguments: StatementArguments(fragment.arguments.map(\.databaseValue)))
                        }
                        let evaluated = try ExpressionEvaluator(context: Shop()).evaluate(expression)
                        #expect(
                            evaluated == .value(.integer(sql ?? -1)),
                            "\(predicate): SQL \(sql.map(String.init) ?? "NULL")")
                    }
                }
            }
        }
        #expect(compiled > 500, "most of the pairs compile")
    }

    // MARK: Archived NSTernaryExpression

    /// Builds an `NSKeyedArchiver` plist object by object.
    struct Archive {
        var objects: [PlistNode] = [.string("$null")]

        mutating func add(_ node: PlistNode) -> PlistNode {
            objects.append(node)
            return .uid(UInt64(objects.count - 1))
        }

        mutating func object(_ className: String?, _ fields: [(String, PlistNode)]) -> PlistNode {
            var keys: [PlistNode] = [], values: [PlistNode] = []
            if let className {
                keys.append(.string("$class"))
                values.append(
                    add(
                        .dict(
                            [.string("$classname"), .string("$classes")],
                            [.string(className), .array([.string(className), .string("NSObject")])])))
            }
            for (key, value) in fields {
                keys.append(.string(key))
                values.append(value)
            }
            return add(.dict(keys, values))
        }

        mutating func sourceKey(_ key: String) -> PlistNode {
            let variable = object(
                "NSVariableExpression", [("NSExpressionType", .int(2)), ("NSVariable", add(.string("source")))])
            let keyPath = object(
                "NSKeyPathSpecifierExpression", [("NSExpressionType", .int(10)), ("NSKeyPath", add(.string(key)))])
            let arguments = object("NSArray", [("NS.objects", .array([keyPath]))])
            return object(
                "NSKeyPathExpression",
                [
                    ("NSExpressionType", .int(3)), ("NSSelectorName", add(.string("valueForKey:"))),
                    ("NSOperand", variable), ("NSArguments", arguments),
                ])
        }

        mutating func constant(_ value: PlistNode?) -> PlistNode {
            object(
                "NSConstantValueExpression",
                [("NSExpressionType", .int(0))] + (value.map { [("NSConstantValue", add($0))] } ?? []))
        }

        mutating func comparison(
            _ left: PlistNode, _ type: Int64, _ right: PlistNode, options: Int64 = 0, negate: Bool = false
        ) -> PlistNode {
            let op = object(
                "NSEqualityPredicateOperator",
                [
                    ("NSOperatorType", .int(type)), ("NSModifier", .int(0)), ("NSOptions", .int(options)),
                    ("NSNegate", .bool(negate)),
                ])
            return object(
                "NSComparisonPredicate",
                [("NSLeftExpression", left), ("NSPredicateOperator", op), ("NSRightExpression", right)])
        }

        func text(root: PlistNode) throws -> String {
            let data = Data(
                BinaryPlist.encode(
                    .dict(
                        [.string("$archiver"), .string("$top"), .string("$objects"), .string("$version")],
                        [.string("NSKeyedArchiver"), .dict([.string("root")], [root]), .array(objects), .int(100000)])))
            return try ArchivedExpression.format(try KeyedArchive(data: data).topObject())
        }
    }

    @Test func archivedTernaryBecomesTheSameExpression() throws {
        var archive = Archive()
        let isNil = archive.comparison(archive.sourceKey("name"), 4, archive.constant(nil))
        let root = archive.object(
            "NSTernaryExpression",
            [
                ("NSExpressionType", .int(20)), ("NSPredicate", isNil),
                ("NSTrueExpression", archive.constant(.string("unnamed"))),
                ("NSFalseExpression", archive.sourceKey("name")),
            ])
        let text = try archive.text(root: root)
        #expect(text == #"TERNARY($source.name == nil, "unnamed", $source.name)"#)
        #expect(
            try ExpressionParser.expression(text)
                == ExpressionParser.expression(#"TERNARY($source.name == nil, "unnamed", $source.name)"#))
    }

    @Test func archivedCompoundPredicatesOptionsAndAggregates() throws {
        var archive = Archive()
        let begins = archive.comparison(archive.sourceKey("name"), 8, archive.constant(.string("ab")), options: 1)
        let notEqual = archive.comparison(archive.sourceKey("n"), 4, archive.constant(.int(3)), negate: true)
        let items = [archive.constant(.int(1)), archive.constant(.int(2))]
        let aggregate = archive.object(
            "NSAggregateExpression",
            [
                ("NSExpressionType", .int(14)),
                ("NSCollection", archive.object("NSArray", [("NS.objects", .array(items))])),
            ])
        let member = archive.comparison(archive.sourceKey("n"), 10, aggregate)
        let truth = archive.object("NSTruePredicate", [])
        let not = archive.object(
            "NSCompoundPredicate",
            [
                ("NSCompoundPredicateType", .int(0)),
                ("NSSubpredicates", archive.object("NSArray", [("NS.objects", .array([member]))])),
            ])
        let or = archive.object(
            "NSCompoundPredicate",
            [
                ("NSCompoundPredicateType", .int(2)),
                (
                    "NSSubpredicates",
                    archive.object("NSArray", [("NS.objects", .array([begins, notEqual, not, truth]))])
                ),
            ])
        let root = archive.object(
            "NSTernaryExpression",
            [
                ("NSExpressionType", .int(20)), ("NSPredicate", or),
                ("NSTrueExpression", archive.constant(.int(1))), ("NSFalseExpression", archive.constant(.int(0))),
            ])
        let text = try archive.text(root: root)
        #expect(
            text
                == #"TERNARY(($source.name BEGINSWITH[c] "ab") OR ($source.n != 3) OR (NOT ($source.n IN {1, 2})) OR (TRUEPREDICATE), 1, 0)"#
        )
        guard case .conditional(.or(let parts), _, _) = try ExpressionParser.expression(text) else {
            Issue.record("not a TERNARY over OR"); return
        }
        #expect(parts.count == 4)
    }

    @Test func archivedPredicatesWithoutATextFormAreRefused() throws {
        // A custom selector's operator (NSCustomSelectorPredicateOperatorType, 11) is the app's code.
        var archive = Archive()
        let matches = archive.comparison(archive.sourceKey("name"), 11, archive.constant(.string(".*")))
        let root = archive.object(
            "NSTernaryExpression",
            [
                ("NSExpressionType", .int(20)), ("NSPredicate", matches),
                ("NSTrueExpression", archive.constant(.int(1))), ("NSFalseExpression", archive.constant(.int(0))),
            ])
        #expect(throws: KeyedArchive.Failure.self) { try archive.text(root: root) }
    }

    @Test func anArchivedMatchesReadsAsMatches() throws {
        var archive = Archive()
        let matches = archive.comparison(archive.sourceKey("name"), 6, archive.constant(.string("[a-h].*")))
        let root = archive.object(
            "NSTernaryExpression",
            [
                ("NSExpressionType", .int(20)), ("NSPredicate", matches),
                ("NSTrueExpression", archive.constant(.int(1))), ("NSFalseExpression", archive.constant(.int(0))),
            ])
        #expect(try archive.text(root: root) == #"TERNARY($source.name MATCHES "[a-h].*", 1, 0)"#)
    }
}
