import Demo
import Foundation
import ObjectModel
import SQLiteStore
import XCTest

@testable import MigrationEngine

/// `FUNCTION(receiver, "selector", …)` in a mapping file must never run what the file names:
/// Core Data would send any selector; Chrysalis sends only ``MappingModel/allowedSelectors`` and
/// refuses the rest with an error that names the selector, before anything is called.
final class FunctionAllowListTests: XCTestCase {
    /// Selectors a hostile mapping would like to send, and near misses of allowed ones.
    static let disallowed = [
        "system:", "stringWithContentsOfFile:", "fileExistsAtPath:", "performSelector:", "valueForKey:",
        "setValue:forKey:", "dealloc", "uppercaseString ", "UPPERCASESTRING", "stringByAppendingString", "",
    ]

    /// Records every call that reaches it: a refused selector must not reach it at all.
    final class Recorder: ExpressionContext {
        var calls: [String] = []
        func variable(_ name: String) throws -> ExpressionValue {
            .object(ObjectRef(side: .source, id: ObjectID(entityNumber: 1, primaryKey: 1)))
        }
        func value(of object: ObjectRef, key: String) throws -> ExpressionValue { .value(.string("/etc/passwd")) }
        func call(_ receiver: ExpressionValue, _ selector: String, _ arguments: [ExpressionValue]) throws
            -> ExpressionValue
        {
            calls.append(selector)
            return .value(.string("called"))
        }
    }

    func testTheAllowListIsTheManagersLookupsAndThreeStringMethods() {
        XCTAssertEqual(
            MappingModel.allowedSelectors,
            [
                "destinationInstancesForEntityMappingNamed:sourceInstances:",
                "destinationInstancesForSourceRelationshipNamed:sourceInstances:",
                "uppercaseString", "lowercaseString", "stringByAppendingString:",
            ])
    }

    func testEvaluationRefusesDisallowedSelectorsWhereverTheyAreBeforeCallingAnything() throws {
        let shapes = [
            #"FUNCTION($source, "S", "/etc/passwd")"#, #"FUNCTION($source.title, "S").length"#,
            #"1 + FUNCTION($manager, "S")"#,
            #"{$source.title, FUNCTION($source, "S")}"#, #"count:(FUNCTION($source, "S"))"#,
            #"-FUNCTION($source, "S")"#,
            #"FUNCTION(FUNCTION($source, "S"), "uppercaseString")"#,
            #"FUNCTION($source.title, "stringByAppendingString:", FUNCTION($source, "S"))"#,
        ]
        for selector in Self.disallowed {
            for shape in shapes {
                let text = shape.replacingOccurrences(of: "\"S\"", with: "\"\(selector)\"")
                let recorder = Recorder()
                XCTAssertThrowsError(
                    try ExpressionEvaluator(context: recorder).evaluate(try ExpressionParser.expression(text)), text
                ) { error in
                    XCTAssertTrue(
                        "\(error)".contains("FUNCTION selector \"\(selector)\" is not allowed"), "\(text): \(error)")
                }
                XCTAssertEqual(recorder.calls, [], "\(text) reached the context")
            }
        }
        let recorder = Recorder()
        XCTAssertEqual(
            try ExpressionEvaluator(context: recorder).evaluate(
                try ExpressionParser.expression(#"FUNCTION($source.title, "uppercaseString")"#)),
            .value(.string("called")))
        XCTAssertEqual(recorder.calls, ["uppercaseString"], "an allowed selector does reach the context")
    }

    /// A BookStore 3 → 4 mapping of Publication with one attribute mapped as `attribute`.
    private func publicationMapping(_ attribute: String) throws -> MappingModel {
        try MappingYAMLReader.read(
            """
            source: BookStore 3
            destination: BookStore 4
            entityMappings:
              - source: Publication
                destination: Publication
                attributes:
                  \(attribute)
            """, name: "Hostile", file: "Hostile.mapping.yaml")
    }

    func testResolvingAMappingRefusesADisallowedSelector() throws {
        let bundle = try bookStore()
        let source = try version(bundle, "BookStore 3").model, destination = try version(bundle, "BookStore 4").model
        for selector in Self.disallowed {
            let mapping = try publicationMapping(#"title: FUNCTION($source.title, "\#(selector)", "/etc/passwd")"#)
            XCTAssertThrowsError(try mapping.resolved(source: source, destination: destination), selector) { error in
                XCTAssertTrue("\(error)".contains("FUNCTION selector \"\(selector)\" is not allowed"), "\(error)")
                XCTAssertTrue(
                    "\(error)".contains("PublicationToPublication.title"), "the error names the property: \(error)")
            }
        }
    }

    func testResolvingLooksInsideAKeyPathOnAFunctionsResult() throws {
        let bundle = try bookStore()
        let mapping = try publicationMapping(#"price: FUNCTION($source.title, "system:").length"#)
        XCTAssertThrowsError(
            try mapping.resolved(
                source: try version(bundle, "BookStore 3").model, destination: try version(bundle, "BookStore 4").model)
        ) {
            error in
            XCTAssertTrue("\(error)".contains("FUNCTION selector \"system:\" is not allowed"), "\(error)")
            XCTAssertTrue("\(error)".contains("PublicationToPublication.price"), "\(error)")
        }
    }

    /// Where resolution does not look (a filter, a key path on a function's result), the
    /// migration stops at the first row with the same error; the store is untouched and the
    /// command never ran.
    func testAMigrationNeverRunsADisallowedSelector() throws {
        let directory = try scratchDirectory()
        let path = directory.appendingPathComponent("BookStore.sqlite").path
        try makeBookStore3(at: path)
        let before = try digest(path)
        let marker = directory.appendingPathComponent("pwned").path
        let bundle = try bookStore()
        for (filter, title) in [
            (#"FUNCTION(SELF, "system:", "touch \#(marker)") == 0"#, "$source.title"),
            ("TRUEPREDICATE", #"FUNCTION($source.title, "stringWithContentsOfFile:", "/etc/passwd").length"#),
        ] {
            let mapping = try MappingYAMLReader.read(
                """
                source: BookStore 3
                destination: BookStore 4
                entityMappings:
                  - source: Category
                    destination: Category
                  - source: Publication
                    destination: Publication
                    filter: '\(filter)'
                    attributes:
                      title: '\(title)'
                  - source: Page
                    destination: Page
                """, name: "Hostile", file: "Hostile.mapping.yaml")
            XCTAssertThrowsError(
                try MappingMigration.run(
                    store: path, from: try version(bundle, "BookStore 3"), to: try version(bundle, "BookStore 4"),
                    mappings: [mapping], options: MigrationOptions(policies: DemoResources.policies))
            ) { error in
                XCTAssertTrue("\(error)".contains("is not allowed"), "\(error)")
            }
            XCTAssertEqual(try digest(path), before, "the source is byte-identical")
            XCTAssertFalse(FileManager.default.fileExists(atPath: marker), "the command never ran")
        }
    }
}
