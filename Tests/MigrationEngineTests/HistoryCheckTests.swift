import Demo
import Foundation
import GRDB
@testable import MigrationEngine
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

/// The history check: it passes what an inferred step keeps, and finds what one loses.
final class HistoryCheckTests: XCTestCase {
    /// A store at BookStore with generated rows (edge values first), its snapshot, and the
    /// inferred step to BookStore 2 run on it.
    private func migratedBookStore() throws -> (path: String, inference: InferredMapping, before: ObjectSnapshot) {
        let bundle = try bookStore()
        let source = try version(bundle, "BookStore"), destination = try version(bundle, "BookStore 2")
        let path = try scratchDirectory().appendingPathComponent("Books.sqlite").path
        let store = try PersistentStore.create(at: path, model: source.model)
        var generator = DataGenerator(model: source.model, seed: 3)
        generator.edgeValues = true
        try generator.fill(store, rows: 20)
        try store.close()
        let before = try ObjectSnapshot.read(path, model: source.model)
        let plan = try MigrationPlan.make(store: path, bundle: bundle, to: destination.name)
        guard case .lightweight(let inference)? = plan.steps.first?.kind else {
            throw MigrationError(.wrongModel, "BookStore → BookStore 2 was not planned as an inferred step", fix: "the test's premise changed")
        }
        _ = try MigrationRunner.run(plan, store: path, keepBackup: false)
        return (path, inference, before)
    }

    func testAKeptStepPassesAndAChangedValueOrLostLinkIsFound() throws {
        let (path, inference, before) = try migratedBookStore()
        let model = inference.destinationModel
        XCTAssertNil(InferredStepCheck(inference: inference, before: before, after: try ObjectSnapshot.read(path, model: model)).firstDifference())

        let queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: "UPDATE ZBOOK SET ZTITLE = 'changed' WHERE Z_PK = (SELECT min(Z_PK) FROM ZBOOK)") }
        let changed = InferredStepCheck(inference: inference, before: before, after: try ObjectSnapshot.read(path, model: model)).firstDifference()
        XCTAssertTrue(changed?.hasPrefix("Book.title: 1 rows differ from Book.title") == true, changed ?? "nothing found")

        try queue.write { db in try db.execute(sql: "DELETE FROM ZBOOK WHERE Z_PK = (SELECT max(Z_PK) FROM ZBOOK)") }
        let lost = InferredStepCheck(inference: inference, before: before, after: try ObjectSnapshot.read(path, model: model)).firstDifference()
        XCTAssertTrue(lost?.contains("keys differ") == true, lost ?? "nothing found")
    }

    /// Every version of the demo's BookStore bundle, with its mapping models, reaches the current
    /// version; without them, the versions whose way needs one fail at that step, saying so.
    func testEveryVersionIsReportedOkOrWithItsFailingStep() throws {
        let bundle = try bookStore()
        let directory = try scratchDirectory()
        let mappings = try ["BookStore3To4", "BookStore4To5"].map(DemoResources.mapping)
        let withMappings = HistoryCheck(bundle: bundle, mappings: mappings, options: MigrationOptions(policies: DemoResources.policies)).run(in: directory)
        XCTAssertEqual(withMappings.map(\.version), bundle.versions.map(\.name))
        XCTAssertTrue(withMappings.allSatisfy(\.ok), withMappings.compactMap(\.error).joined(separator: "\n"))
        XCTAssertEqual(withMappings.last?.steps, 0, "the current version is the target itself")

        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [], "every store made is removed")
    }

    /// A new version that adds a required attribute without a default: every older version's
    /// store (which has rows) fails at that step, with Core Data's reason and the fix.
    func testAVersionThatBreaksTheHistoryIsNamedWithItsFix() throws {
        let books = try bookStore()
        var model = try version(books, "BookStore 2").model
        let book = try XCTUnwrap(model.entities.firstIndex { $0.name == "Book" })
        model.entities[book].attributes.append(AttributeDescription(PropertyDescription(name: "isbn"), type: .string))
        let bundle = ModelBundle(name: "Broken", versions: [try version(books, "BookStore"), ModelBundle.Version(name: "BookStore 2", model: model)],
                                 currentVersionName: "BookStore 2")
        let outcomes = HistoryCheck(bundle: bundle).run(in: try scratchDirectory())
        XCTAssertEqual(outcomes.map(\.ok), [false, true])
        let error = try XCTUnwrap(outcomes.first?.error)
        XCTAssertTrue(error.contains("BookStore → BookStore 2") && error.contains("Book.isbn is new and required but has no default value"), error)
        XCTAssertTrue(error.contains("Fix: give the attribute a default value"), error)
    }
}
