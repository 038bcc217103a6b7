import Demo
import Foundation
import MigrationEngine
import ObjectModel
import SQLiteStore
import XCTest

/// Bad mappings, policies and data: a clear error, the source untouched, nothing left behind.
final class MigrationBadInputTests: XCTestCase {
    private var path = ""
    private var before = Data()

    override func setUpWithError() throws {
        path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        try makeBookStore3(at: path)
        before = try digest(path)
    }

    private func expectFailure(
        from: String = "BookStore 3", to: String = "BookStore 4", mappings: [MappingModel],
        policies: PolicyRegistry = DemoResources.policies, saying expected: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let bundle = try bookStore()
        XCTAssertThrowsError(
            try MappingMigration.run(
                store: path, from: try version(bundle, from), to: try version(bundle, to),
                mappings: mappings, options: MigrationOptions(policies: policies)), file: file, line: line
        ) { error in
            XCTAssertTrue("\(error)".contains(expected), "\(error)", file: file, line: line)
        }
        XCTAssertEqual(try digest(path), before, "the source is byte-identical", file: file, line: line)
        XCTAssertEqual(try directoryListing(path), ["BookStore.sqlite"], "nothing left behind", file: file, line: line)
    }

    private func yaml(_ body: String) throws -> MappingModel {
        try MappingYAMLReader.read(
            "source: BookStore 3\ndestination: BookStore 4\nentityMappings:\n" + body, name: "Test",
            file: "Test.mapping.yaml")
    }

    func testMappingForTheWrongModelPair() throws {
        try expectFailure(
            from: "BookStore 4", to: "BookStore 5", mappings: [try DemoResources.mapping("BookStore3To4")],
            saying: "is not at version BookStore 4")
        let groceries = try DemoResources.mapping("Groceries3To4")
        try expectFailure(
            mappings: [groceries], saying: "mapping Groceries3To4 maps Model 3 → Model 4, not BookStore 3 → BookStore 4"
        )
    }

    func testUnknownEntityAndProperty() throws {
        try expectFailure(
            mappings: [try yaml("  - source: Publikation\n    destination: Publication\n")],
            saying:
                "PublikationToPublication: source entity Publikation is not in version BookStore 3. Fix: use one of: Category, Page, Publication"
        )
        try expectFailure(
            mappings: [
                try yaml(
                    "  - source: Publication\n    destination: Publication\n    attributes:\n      titel: $source.title\n"
                )
            ],
            saying: "PublicationToPublication.titel: Publication has no stored attribute titel")
    }

    func testExpressionNamingAMissingKey() throws {
        try expectFailure(
            mappings: [
                try yaml(
                    "  - source: Publication\n    destination: Publication\n    attributes:\n      title: $source.titel\n"
                )
            ],
            saying: "PublicationToPublication.title: column 9 of \"$source.titel\": Publication has no key \"titel\"")
    }

    func testExpressionThatDoesNotParse() throws {
        XCTAssertThrowsError(
            try yaml(
                "  - source: Publication\n    destination: Publication\n    attributes:\n      price: ($source.price * 1.04\n"
            )
        ) {
            error in
            XCTAssertTrue(
                "\(error)".contains(
                    "Test.mapping.yaml:7: PublicationToPublication.price: column 22 of \"($source.price * 1.04\": expected ')' here"
                ),
                "\(error)")
        }
        XCTAssertThrowsError(
            try yaml(
                "  - source: Publication\n    destination: Publication\n    attributes:\n      price: FUNCTION($source, \"performSelector:\", \"x\")\n"
            )
            .resolved(
                source: try version(try bookStore(), "BookStore 3").model,
                destination: try version(try bookStore(), "BookStore 4").model)
        ) { error in
            XCTAssertTrue("\(error)".contains("FUNCTION selector \"performSelector:\" is not allowed"), "\(error)")
        }
    }

    func testPolicyThatIsNotRegistered() throws {
        try expectFailure(
            mappings: [try DemoResources.mapping("BookStore3To4")], policies: PolicyRegistry(),
            saying:
                "entity mapping PublicationToPublication of BookStore3To4 names policy PublicationToPublicationMigrationPolicy, which is not registered"
        )
    }

    func testValidationFailureNamesEntityObjectAndProperty() throws {
        // A destination where every category needs a name; one source category has none.
        let bundle = try bookStore()
        var model = try version(bundle, "BookStore 4").model
        let index = try XCTUnwrap(model.entities.firstIndex { $0.name == "Category" })
        model.entities[index].attributes[0].isOptional = false
        let strict = ModelBundle.Version(name: "BookStore 4", model: model)
        let store = try PersistentStore.open(at: path, mode: .readWrite)
        let layout = try store.layout(for: try version(bundle, "BookStore 3").model)
        _ = try store.writeObjects(layout) { try $0.insert("Category") }
        try store.close()
        before = try digest(path)
        XCTAssertThrowsError(
            try MappingMigration.run(
                store: path, from: try version(bundle, "BookStore 3"), to: strict,
                mappings: [try DemoResources.mapping("BookStore3To4")],
                options: MigrationOptions(policies: DemoResources.policies))
        ) { error in
            XCTAssertEqual(
                "\(error)",
                "validation failed in the destination: Category object 3 (Z_PK 3): name is required but has no value; Core Data refuses such a store too (it validates the destination before saving). Fix: map a value for Category.name in the mapping model, or make it optional in the destination model"
            )
        }
        XCTAssertEqual(try digest(path), before)
        XCTAssertEqual(try directoryListing(path), ["BookStore.sqlite"])
    }

    func testSecondMigrationOfTheSameStoreIsRefused() throws {
        let bundle = try bookStore()
        let from = try version(bundle, "BookStore 3"), to = try version(bundle, "BookStore 4")
        let mapping = try DemoResources.mapping("BookStore3To4")
        let path = self.path
        let hold = MigrationOptions(
            policies: DemoResources.policies,
            configureManager: { _ in
                // While the first migration runs, a second one on the same store must be refused.
                XCTAssertThrowsError(try MappingMigration.run(store: path, from: from, to: to, mappings: [mapping])) {
                    error in
                    XCTAssertEqual((error as? MigrationError)?.kind, .locked, "\(error)")
                    XCTAssertTrue(
                        "\(error)".contains("is being migrated by another process: pid \(getpid()) ("), "\(error)")
                    // Since when, in UTC, as ISO 8601.
                    XCTAssertNotNil(
                        "\(error)".range(
                            of: #"\) since 20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ"#, options: .regularExpression), "\(error)")
                }
            })
        XCTAssertNoThrow(
            try MappingMigration.run(
                store: path, from: try version(bundle, "BookStore 3"), to: try version(bundle, "BookStore 4"),
                mappings: [try DemoResources.mapping("BookStore3To4")], options: hold))
    }
}
