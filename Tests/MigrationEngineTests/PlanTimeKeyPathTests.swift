import Foundation
import ObjectModel
import SQLiteStore
import XCTest

@testable import MigrationEngine

/// Mistakes in a mapping's expressions are found when the plan is made — by
/// `MappingModel.resolved` or the YAML reader — never on the first row of a migration: a bad key
/// anywhere an expression reads the source (TERNARY branches and conditions, FUNCTION arguments,
/// arithmetic, filters), a YAML-quoted word that is really a key path, a map where an expression
/// belongs. Each error names the file, the entity mapping, the property and the column.
final class PlanTimeKeyPathTests: XCTestCase {
    static let file = "Shop1To2.mapping.yaml"

    /// The Item mapping of ``TernaryMigrationTests`` with `lines` as its attributes (and filter).
    static func yaml(_ lines: String, filter: String = "status > 0") -> String {
        """
        source: Shop 1
        destination: Shop 2
        entityMappings:
          - source: Tag
            destination: Tag
          - source: Item
            destination: Item
            filter: \(filter)
            attributes:
        \(lines.split(separator: "\n").map { "      " + $0 }.joined(separator: "\n"))
        """
    }

    private func resolutionError(_ yaml: String, file: StaticString = #filePath, line: UInt = #line) throws
        -> MappingError?
    {
        let (v1, v2) = try TernaryMigrationTests.versions()
        let mapping = try MappingYAMLReader.read(yaml, name: "Shop1To2", file: Self.file)
        do {
            _ = try mapping.resolved(source: v1.model, destination: v2.model)
            XCTFail("resolved without an error", file: file, line: line)
            return nil
        } catch let error as MappingError {
            return error
        }
    }

    private func readingError(_ yaml: String, file: StaticString = #filePath, line: UInt = #line) -> MappingError? {
        do {
            _ = try MappingYAMLReader.read(yaml, name: "Shop1To2", file: Self.file)
            XCTFail("read without an error", file: file, line: line)
            return nil
        } catch {
            XCTAssertTrue(error is MappingError, "\(type(of: error)): \(error)", file: file, line: line)
            return error as? MappingError
        }
    }

    func testBadKeysAnywhereInAnExpressionAreFoundAtPlanTime() throws {
        let itemKeys = "(keys: name, price, status, tags)"
        let cases: [(String, String, String, String)] = [
            // attribute line, element, column in the expression, message
            (
                #"label: TERNARY($source.name == nil, "unnamed", $source.nmae)"#, "ItemToItem.label", "column 49",
                #"Item has no key "nmae" \#(itemKeys)"#
            ),
            (
                #"label: TERNARY($source.name == "nam", $source.nam, "x")"#, "ItemToItem.label", "column 40",
                #"Item has no key "nam""#
            ),
            ("tier: TERNARY($source.stat IN {1, 2}, 1, 2)", "ItemToItem.tier", "column 17", #"Item has no key "stat""#),
            (
                "tier: TERNARY(NOT (prise > 3 || status == nil), 1, 2)", "ItemToItem.tier", "column 14",
                #"Item has no key "prise""#
            ),
            ("tier: $source.status * $source.prise", "ItemToItem.tier", "column 26", #"Item has no key "prise""#),
            ("kind: $source.tags.nmae", "ItemToItem.kind", "column 14", #"Tag has no key "nmae" (keys: items, name)"#),
            (
                "kind: $source.name.lenght", "ItemToItem.kind", "column 14",
                #"Item.name is an attribute: its value has no key "lenght" (its keys: length, lowercaseString, uppercaseString)"#
            ),
            (
                "kind: $source.name.length.x", "ItemToItem.kind", "column 21",
                #"Item.name.length is an attribute: its value has no key "x""#
            ),
            (
                #"kind: FUNCTION($source.nmae, "stringByAppendingString:", "!")"#, "ItemToItem.kind", "column 18",
                #"Item has no key "nmae""#
            ),
            (
                "tier: count:($source.tags.@distinctUnionOfObjects.nmae)", "ItemToItem.tier", "column 45",
                #"Tag has no key "nmae""#
            ),
            ("label: entry", "ItemToItem.label", "column 1", #"Item has no key "entry""#),
        ]
        for (line, element, column, message) in cases {
            let error = try resolutionError(Self.yaml(line))
            XCTAssertEqual(error?.file, Self.file, line)
            XCTAssertEqual(error?.element, element, line)
            XCTAssertTrue(
                error?.problem.hasPrefix(column + " of \"") == true,
                "\(line): \(error.map(String.init(describing:)) ?? "")")
            XCTAssertTrue(
                error?.problem.contains(message) == true, "\(line): \(error.map(String.init(describing:)) ?? "")")
        }
    }

    /// A key path may read a value's own keys, as key-value coding reads them from the
    /// Foundation object (Pocket's mapping reads `$source.url.absoluteString`).
    func testAValuesOwnKeysAreRead() throws {
        let (v1, v2) = try TernaryMigrationTests.versions()
        let mapping = try MappingYAMLReader.read(
            Self.yaml("kind: $source.name.uppercaseString"), name: "Shop1To2", file: Self.file)
        XCTAssertNoThrow(try mapping.resolved(source: v1.model, destination: v2.model))
        let url = try XCTUnwrap(URL(string: "https://example.com/a/b%20c?q=1"))
        XCTAssertEqual(ValueKeys.value(.uri(url), key: "absoluteString"), .string("https://example.com/a/b%20c?q=1"))
        XCTAssertEqual(ValueKeys.value(.uri(url), key: "lastPathComponent"), .string("b c"))
        XCTAssertEqual(
            ValueKeys.value(.string("Zoë 🦋"), key: "length"), .integer(6), "UTF-16 units, as NSString counts")
        XCTAssertNil(ValueKeys.value(.integer(3), key: "length"))
    }

    func testABadKeyInAFunctionArgumentOrAFilterIsFoundAtPlanTime() throws {
        let relationship = try resolutionError(
            Self.yaml("") + """

                    relationships:
                      tags: FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "TagToTag", $source.tagz)
                """)
        XCTAssertEqual(relationship?.element, "ItemToItem.tags")
        XCTAssertTrue(
            relationship?.problem.contains(#"column 102 of "FUNCTION($manager, "#) == true,
            "\(String(describing: relationship))")
        XCTAssertTrue(
            relationship?.problem.contains(#"Item has no key "tagz" (keys: name, price, status, tags)"#) == true)

        let filter = try resolutionError(
            Self.yaml(#"label: '"x"'"#, filter: #"status > 1 AND (nmae BEGINSWITH "a" OR TRUEPREDICATE)"#))
        XCTAssertEqual(filter?.element, "ItemToItem.filter")
        XCTAssertTrue(filter?.problem.contains(#"Item has no key "nmae""#) == true, "\(String(describing: filter))")
        XCTAssertTrue(
            filter?.problem.hasPrefix(#"column 20 of "(status > 1) AND ((nmae BEGINSWITH "a") OR (TRUEPREDICATE))""#)
                == true,
            "a filter's column counts in the filter as printed: \(String(describing: filter))")
    }

    func testABareWordSaysHowToWriteTextInYAML() throws {
        let error = try resolutionError(Self.yaml("label: entry"))
        XCTAssertEqual(
            error?.fix,
            #"use one of Item's keys, or for the text entry write a string constant in quotes: "entry" (in a YAML mapping, quote it again inside YAML's quotes: label: '"entry"')"#
        )
    }

    func testYAMLQuotesAroundAWordAreRefusedWhenTheFileIsRead() throws {
        for line in [#"label: "entry""#, "label: 'entry'"] {
            let error = readingError(Self.yaml(line))
            XCTAssertEqual(error?.file, Self.file)
            XCTAssertEqual(error?.line, 10, line)
            XCTAssertEqual(error?.element, "ItemToItem.label", line)
            XCTAssertTrue(
                error?.problem.contains("is the key path entry, not text: YAML removes its quotes") == true,
                "\(String(describing: error))")
            XCTAssertTrue(error?.fix?.contains(#"label: '"entry"'"#) == true, "\(String(describing: error))")
        }
        let sentence = readingError(Self.yaml(#"label: "it's here""#))
        XCTAssertTrue(
            sentence?.fix?.contains(#"for the text it's here, write label: '"it''s here"'"#) == true,
            "\(String(describing: sentence))")
        // Quoted text that is a real expression, and a quoted string constant, still read.
        let mapping = try MappingYAMLReader.read(
            Self.yaml(#"label: '"entry"'"# + "\n" + #"kind: "TERNARY($source.name == nil, 'none', $source.name)""#),
            name: "Shop1To2", file: Self.file)
        let item = try XCTUnwrap(mapping.entityMapping(named: "ItemToItem"))
        XCTAssertEqual(
            item.attributeMappings.first { $0.name == "label" }?.expression,
            MigrationEngine.Expression.constant(StoreValue.string("entry")))
        XCTAssertNotNil(item.attributeMappings.first { $0.name == "kind" }?.expression)
    }

    func testAMapOrAListWhereAnExpressionBelongsIsAnError() {
        for (line, found) in [("price: {a: 1}", "mapping"), ("label: [a, b]", "list"), ("kind:\n  - a", "list")] {
            let error = readingError(Self.yaml(line))
            XCTAssertEqual(error?.file, Self.file, line)
            XCTAssertEqual(error?.element, "ItemToItem." + line.prefix { $0 != ":" }, line)
            XCTAssertEqual(error?.problem, "expected a value expression, found a YAML \(found)", line)
            XCTAssertNotNil(error?.fix)
        }
    }

    /// The whole migration stops before it writes anything: the store, its directory and its
    /// bytes are as they were.
    func testAMigrationWithABadKeyNeverTouchesTheStore() throws {
        let (v1, v2) = try TernaryMigrationTests.versions()
        let path = try scratchDirectory().appendingPathComponent("Shop.sqlite").path
        let store = try PersistentStore.create(at: path, model: v1.model)
        try store.writeObjects(StoreLayout(model: v1.model)) { writer in
            _ = try writer.insert("Item", ["name": .string("Abacus")])
        }
        try store.close()
        let before = (try digest(path), try directoryListing(path))
        let mapping = try MappingYAMLReader.read(
            Self.yaml(#"label: TERNARY(name == nil, "unnamed", $source.nmae)"#), name: "Shop1To2", file: Self.file)
        XCTAssertThrowsError(try MappingMigration.run(store: path, from: v1, to: v2, mappings: [mapping])) { error in
            XCTAssertTrue(error is MappingError, "\(type(of: error)): \(error)")
            XCTAssertTrue(
                "\(error)".contains(
                    #"ItemToItem.label: column 41 of "TERNARY(name == nil, "unnamed", $source.nmae)": Item has no key "nmae""#
                ), "\(error)")
        }
        XCTAssertEqual(try digest(path), before.0)
        XCTAssertEqual(try directoryListing(path), before.1)
    }
}
