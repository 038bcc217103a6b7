import Demo
import Foundation
import MigrationEngine
import ObjectModel
import SQLiteStore
import XCTest

/// Core Data's count rules for a to-many after a mapping step: a required to-many with no
/// minimum may be empty (WooCommerce's `ProductVariation.attributes`); a minimum is enforced,
/// on an optional one only when it is not empty.
final class RelationshipCountRuleTests: XCTestCase {
    private var path = ""

    override func setUpWithError() throws {
        path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        try makeBookStore3(at: path)
        // A category with no books at all.
        let store = try PersistentStore.open(at: path, mode: .readWrite)
        _ = try store.writeObjects(try store.layout(for: try version(try bookStore(), "BookStore 3").model)) {
            try $0.insert("Category", ["name": .string("Empty")])
        }
        try store.close()
    }

    /// BookStore 4 with Category.books made required, with `minCount` and `optional` as given.
    private func destination(optional: Bool, minCount: Int) throws -> ModelBundle.Version {
        var model = try version(try bookStore(), "BookStore 4").model
        let entity = try XCTUnwrap(model.entities.firstIndex { $0.name == "Category" })
        let relationship = try XCTUnwrap(model.entities[entity].relationships.firstIndex { $0.name == "books" })
        model.entities[entity].relationships[relationship].isOptional = optional
        model.entities[entity].relationships[relationship].minCount = minCount
        return ModelBundle.Version(name: "BookStore 4", model: model)
    }

    private func migrate(to destination: ModelBundle.Version) throws {
        _ = try MappingMigration.run(
            store: path, from: try version(try bookStore(), "BookStore 3"), to: destination,
            mappings: [try DemoResources.mapping("BookStore3To4")],
            options: MigrationOptions(policies: DemoResources.policies))
    }

    func testARequiredToManyWithNoMinimumMayBeEmpty() throws {
        try migrate(to: try destination(optional: false, minCount: 0))
        let empty = try rows(
            path,
            "SELECT count(*) FROM ZCATEGORY c WHERE NOT EXISTS (SELECT 1 FROM ZPUBLICATION p WHERE p.ZCATEGORY = c.Z_PK)"
        )
        XCTAssertEqual(empty.first?.first?.storage.value as? Int64, 1, "the empty category arrived")
    }

    func testAMinimumIsEnforcedOnARequiredToMany() throws {
        let before = try digest(path)
        XCTAssertThrowsError(try migrate(to: try destination(optional: false, minCount: 1))) { error in
            XCTAssertTrue("\(error)".contains("books has 0 destinations; the model requires at least 1"), "\(error)")
            XCTAssertFalse("\(error)".contains("(or none)"), "\(error)")
        }
        XCTAssertEqual(try digest(path), before, "the source is untouched")
    }

    func testAnOptionalToManyMayBeEmptyWhateverItsMinimum() throws {
        try migrate(to: try destination(optional: true, minCount: 2))
        XCTAssertEqual(try rows(path, "SELECT count(*) FROM ZCATEGORY").first?.first?.storage.value as? Int64, 3)
    }
}
