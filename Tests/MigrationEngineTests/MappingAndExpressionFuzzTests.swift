import Foundation
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

@testable import MigrationEngine

/// Hostile mapping files and expressions: every mutant of a real `Name.mapping.yaml`,
/// `xcmapping.xml` (with the keyed-archived expressions inside) or value expression must be read
/// or refused with the reader's own error type and a message, never crash or hang. Expressions
/// that parse are also printed and evaluated on hostile values (`Int64.min`, infinities, NaN).
///
/// `CHRYSALIS_FUZZ_INPUTS=100000 swift test --filter MappingAndExpressionFuzzTests` is the full run.
final class MappingAndExpressionFuzzTests: FixtureTestCase {
    static let yamlFiles = FuzzSeeds.files { $0.path.hasSuffix(".mapping.yaml") }
    static let xcmappingFiles = FuzzSeeds.files { $0.lastPathComponent == "xcmapping.xml" }

    static let yamlTokens = [
        ":", ": ", "- ", "[", "]", "{", "}", "&a ", "*a", "<<: *a\n", "? ", "|\n", ">-\n", "#", "'", "\"", "\t", "\n",
        "---\n", "...\n",
        "%YAML 1.2\n", "!!binary ", "!!int 99999999999999999999", "!!python/object:os.system ", "\"\\u0000\"",
        "\n  - name: X\n    source: Book\n    destination: Book\n", "\n    attributes:\n      title: ",
        "\n    filter: ",
        "$source.price * 1.04", "FUNCTION($manager, \"system:\", \"ls\")", "kind: custom\n",
        "userInfo: {a: [1, {b: c}]}\n",
    ]

    static let expressionTokens = [
        "(", ")", "$source.", "$manager", "$nope", "FUNCTION(", "FUNCTION($source, \"system:\", \"rm -rf /\")", "\"",
        "'", "\\", ",",
        ".", "@count", "@sum.", "@avg", "#", "#size", "{", "}", "[", "]", "[cd]", "99999999999999999999",
        "-9223372036854775808",
        "9223372036854775807", "1e999", "1e-999", "0.", "NaN", "-", "--", "+", "*", "/ 0", "count:(", "now()",
        "SUBQUERY(",
        " AND ", " OR ", "NOT ", "!", " BEGINSWITH ", " IN ", "==", "<>", "=<", "TRUEPREDICATE", "SELF", "nil", "\u{0}",
        "\u{FFFD}",
        "é\u{301}", "٣", "½", "🦋", "\n",
    ]

    static let mappingXMLTokens = [
        "<", "\"", "&", "</object>", "<object type=\"XDDEVENTITYMAPPING\" id=\"z1\">", " idrefs=\"z1 z1 z1\"",
        " id=\"\"",
        "<attribute name=\"mappingnumber\" type=\"int64\">99999999999999999999</attribute>",
        "<attribute name=\"sourcefilterpredicatestring\" type=\"string\">((((</attribute>",
        "<attribute name=\"valueexpressiondata\" type=\"binary\">!!!!</attribute>",
        "<attribute name=\"userinfodata\" type=\"binary\">YnBsaXN0MDA=</attribute>",
        "<attribute name=\"sourcekeypath\" type=\"string\">$source.a</attribute><attribute name=\"sourcemappingname\" type=\"string\">\"</attribute>",
    ]

    func testMappingYAMLReaderSurvivesMutants() throws {
        let seeds = FuzzSeeds.contents(of: Self.yamlFiles)
        XCTAssertGreaterThanOrEqual(seeds.count, 6, "the demo and benchmark mapping files are the seeds")
        let report = Fuzz.run(
            "MappingYAMLReader", seeds: seeds, seed: 0x5941_4D4C_4D41_5050, tokens: Self.yamlTokens,
            count: Fuzz.inputCount(default: 300),
            mutate: { mutator, a, b in
                guard mutator.chance(0.02) else { return mutator.mutate(seeds[a], other: seeds[b]) }
                mutator.log.append("aliasBomb")
                let bomb = (1...9).map {
                    "l\($0): &l\($0) [" + Array(repeating: "*l\($0 - 1)", count: 10).joined(separator: ", ") + "]\n"
                }
                return Array(("l0: &l0 [lol]\n" + bomb.joined() + "userInfo: *l9\n").utf8) + seeds[a]
            },
            body: { input in
                _ = try MappingYAMLReader.read(
                    String(decoding: input, as: UTF8.self), name: "Fuzz", file: "Fuzz.mapping.yaml")
            }, isExpected: { $0 is MappingError })
        XCTAssertTrue(report.failures.isEmpty, report.failures.joined(separator: "\n"))
        XCTAssertGreaterThan(report.rejected, 0)
    }

    func testXCMappingReaderSurvivesMutants() throws {
        let seeds = FuzzSeeds.contents(of: Self.xcmappingFiles)
        let archives = seeds.flatMap {
            FuzzSeeds.binaryAttributes(named: ["valueexpressiondata", "userinfodata"], in: $0)
        }
        .compactMap { bytes in BinaryPlist.decode(bytes).map { (bytes: bytes, tree: $0) } }
        XCTAssertGreaterThanOrEqual(seeds.count, 8, "the fixtures' and demo's mapping models are the seeds")
        XCTAssertGreaterThanOrEqual(
            archives.count, 5, "their archived expressions and user infos seed the archive mutations")
        let file = URL(fileURLWithPath: "/fuzz/Fuzz.xcmappingmodel/xcmapping.xml")
        let report = Fuzz.run(
            "XCMappingReader", seeds: seeds, seed: 0x5843_4D41_5050_494E, tokens: Self.mappingXMLTokens,
            count: Fuzz.inputCount(default: 100),
            mutate: { mutator, a, b in
                mutator.chance(0.5)
                    ? Self.withMutatedArchive(&mutator, seeds[a], pool: archives)
                    : mutator.mutate(seeds[a], other: seeds[b])
            },
            body: { input in
                _ = try XCMappingReader.read(Data(input), file: file)
            }, isExpected: { $0 is MappingError })
        XCTAssertTrue(report.failures.isEmpty, report.failures.joined(separator: "\n"))
        XCTAssertGreaterThan(report.accepted, seeds.count, "some mutants must still be mapping models")
    }

    func testExpressionParserSurvivesMutants() throws {
        let seeds = try Self.expressionSeeds().map { Array($0.utf8) }
        let report = Fuzz.run(
            "ExpressionParser", seeds: seeds, seed: 0x4558_5052_4553_5349,
            tokens: Self.expressionTokens, count: Fuzz.inputCount(default: 500),
            mutate: { mutator, a, b in
                mutator.mutate(seeds[a], other: seeds[b])
            },
            body: { input in
                let text = String(decoding: input, as: UTF8.self)
                do {
                    let expression = try ExpressionParser.expression(text)
                    _ = expression.description
                    try Self.evaluate(expression)
                } catch let error as ExpressionError where !error.description.isEmpty {
                } catch let error as EvaluationError where !error.description.isEmpty {
                } catch {
                    throw Violation(description: "as a value expression: \(type(of: error)) \"\(error)\"")
                }
                let predicate = try ExpressionParser.predicate(text)
                _ = predicate.description
                _ = try? PredicateEvaluator(
                    evaluator: ExpressionEvaluator(context: HostileValues(), evaluatedObject: HostileValues.object)
                )
                .matches(predicate)
            }, isExpected: { $0 is ExpressionError })
        XCTAssertTrue(report.failures.isEmpty, report.failures.joined(separator: "\n"))
        XCTAssertGreaterThan(report.accepted, 0)
    }

    /// A reader broke the rules in a way the harness should report (not the reader's error).
    struct Violation: Error, CustomStringConvertible { var description: String }

    /// Real expressions and predicates: every value expression of the seed mapping files (through
    /// their readers), the demo filters, and the forms the parser tests name.
    static func expressionSeeds() throws -> [String] {
        var texts = [
            "$source.amount", "($source.temperature - 32.0) / 1.8", "$source.countries.@distinctUnionOfSets.moods",
            "count:(pages)",
            "-$source.price + 2 * 3", "$source.#size", #""it's \"quoted\"""#, "{1, 2, $source.a}", "now()",
            "abs:($source.x)",
            #"price > 10 AND (title BEGINSWITH "The" OR NOT name IN {"a", "b"}) && author LIKE[c] "J*""#,
            "TRUEPREDICATE",
            #"FUNCTION($source.name, "stringByAppendingString:", "!")"#, "$source.items.@sum.price * -1",
        ]
        for url in yamlFiles {
            let mapping = try MappingYAMLReader.read(at: url)
            texts += mapping.entityMappings.flatMap(\.propertyMappings).compactMap(\.text)
            for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n") {
                if let range = line.range(of: "filter: ") { texts.append(String(line[range.upperBound...])) }
            }
        }
        for url in xcmappingFiles {
            texts += try XCMappingReader.read(at: url).entityMappings.flatMap(\.propertyMappings).compactMap(\.text)
        }
        return Array(Set(texts)).sorted()
    }

    /// Evaluates `expression` on hostile values and converts the result for every attribute type,
    /// as stage 1 of a migration does.
    static func evaluate(_ expression: MigrationEngine.Expression) throws {
        let value = try ExpressionEvaluator(context: HostileValues(), evaluatedObject: HostileValues.object).evaluate(
            expression)
        for type in [AttributeTypeName.integer, .real, .decimal, .boolean, .date, .other] {
            _ = value.storeValue(for: type)
        }
    }

    /// Keys give the values that break careless arithmetic, chosen by the key's first letter.
    struct HostileValues: ExpressionContext {
        static let object = ExpressionValue.object(
            ObjectRef(side: .source, id: ObjectID(entityNumber: 1, primaryKey: 1)))

        func variable(_ name: String) throws -> ExpressionValue {
            name == "manager" || name == "entityPolicy" ? .value(.string(name)) : Self.object
        }

        func value(of object: ObjectRef, key: String) throws -> ExpressionValue {
            let values: [ExpressionValue] = [
                .value(.integer(.min)), .value(.integer(.max)), .value(.double(.infinity)), .value(.double(.nan)),
                .value(.double(-1e308)),
                .value(.string("text")), Self.object, .collection([Self.object, .value(.integer(.min))]), .null,
                .value(.bool(true)),
            ]
            return values[Int(key.unicodeScalars.first?.value ?? 0) % values.count]
        }

        func call(_ receiver: ExpressionValue, _ selector: String, _ arguments: [ExpressionValue]) throws
            -> ExpressionValue
        {
            // Any other selector may reach only the mapping's own policy (the app's code, registered by the app).
            guard MappingModel.allowedSelectors.contains(selector) || receiver == .value(.string("entityPolicy")) else {
                throw Violation(description: "\(selector) reached the context")
            }
            return .collection([Self.object])
        }
    }

    /// `input` with one archived expression or user info replaced by a mutant of an archive from
    /// `pool`, or with a new archived expression added to a property mapping that had none.
    static func withMutatedArchive(
        _ mutator: inout Mutator, _ input: [UInt8], pool: [(bytes: [UInt8], tree: PlistNode)]
    ) -> [UInt8] {
        var text = String(decoding: input, as: UTF8.self)
        let (first, second) = (mutator.pick(pool), mutator.pick(pool))
        let encoded = Data(
            mutator.mutateArchive(first.tree, other: second.tree, bytes: first.bytes, otherBytes: second.bytes)
        ).base64EncodedString()
        var slots: [Range<String.Index>] = []
        for name in ["valueexpressiondata", "userinfodata"] {
            var from = text.startIndex
            while let open = text.range(
                of: "<attribute name=\"\(name)\" type=\"binary\">", range: from..<text.endIndex),
                let close = text.range(of: "</attribute>", range: open.upperBound..<text.endIndex)
            {
                slots.append(open.upperBound..<close.lowerBound)
                from = close.upperBound
            }
        }
        if !slots.isEmpty, mutator.chance(0.7) {
            text.replaceSubrange(mutator.pick(slots), with: encoded)
            mutator.log.append("embedded archive")
        } else {
            var owners: [String.Index] = []
            var from = text.startIndex
            while let open = text.range(of: "MAPPING\" id=\"", range: from..<text.endIndex),
                let end = text.range(of: ">", range: open.upperBound..<text.endIndex)
            {
                owners.append(end.upperBound)
                from = end.upperBound
            }
            guard !owners.isEmpty else { return Array(text.utf8) }
            text.insert(
                contentsOf: "<attribute name=\"valueexpressiondata\" type=\"binary\">\(encoded)</attribute>",
                at: mutator.pick(owners))
            mutator.log.append("added archive")
        }
        return Array(text.utf8)
    }
}
