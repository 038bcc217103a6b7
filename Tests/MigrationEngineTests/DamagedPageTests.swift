import Demo
import Foundation
import MigrationEngine
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

/// A damaged page in the middle of a table, with no whole-file check before the first write
/// (issue 32 §1): the plan reads nothing it does not need, a step that reads the damaged page
/// fails before anything is swapped and the plan is undone, byte for byte; `checksPages` refuses
/// the store before any write.
final class DamagedPageTests: XCTestCase {
    /// A BookStore store at its first version whose Book table has a leaf page overwritten in
    /// the middle of the file: the schema and every other table read as they were.
    private func damagedStore() throws -> String {
        let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        let model = try version(try bookStore(), "BookStore").model
        let store = try PersistentStore.create(at: path, model: model)
        try DataGenerator(model: model).fill(store, rows: 3_000)
        try store.close()
        try DamagedPage.overwrite(leafOf: "ZBOOK", in: path)
        return path
    }

    /// Step by step: step 1 adds a column (schema only, reads no row), step 2 renumbers every
    /// row's Z_ENT and meets the damage. To `target`; the whole chain unless told, whose mapping
    /// steps have the store's rows checked for a stray entity number before the first write (a
    /// read of every table, which meets the damage there).
    private func plan(_ path: String, to target: String? = nil) throws -> MigrationPlan {
        try MigrationPlan.make(
            store: path, bundle: try bookStore(),
            mappings: [try DemoResources.mapping("BookStore3To4"), try DemoResources.mapping("BookStore4To5")],
            to: target, strategy: .iterative)
    }

    func testAPlanReadsNoPageItDoesNotNeed() throws {
        let path = try damagedStore()
        XCTAssertEqual(try plan(path).steps.count, 4)
    }

    func testAStepThatMeetsTheDamageUndoesThePlanByteForByte() throws {
        let path = try damagedStore()
        let before = try digest(path)
        let listing = try directoryListing(path)
        let plan = try plan(path, to: "BookStore 3")
        XCTAssertEqual(plan.steps.count, 2)
        XCTAssertThrowsError(
            try MigrationRunner.run(plan, store: path, options: MigrationOptions(policies: DemoResources.policies))
        ) { error in
            let error = error as? MigrationError
            XCTAssertTrue(error.map { "\($0)" }?.contains("is corrupt") == true, "\(String(describing: error))")
            XCTAssertEqual(
                error?.state?.name, "restored",
                "step 1 ran; step 2 met the damage and the original is put back: \(String(describing: error))")
        }
        XCTAssertEqual(try digest(path), before, "the store is as it was, damage and all")
        XCTAssertEqual(try directoryListing(path), listing, "no backup, journal or new store left behind")
    }

    func testCheckingPagesRefusesTheStoreBeforeAnyWrite() throws {
        let path = try damagedStore()
        let before = try digest(path)
        let listing = try directoryListing(path)
        var options = MigrationOptions(policies: DemoResources.policies)
        options.checksPages = true
        XCTAssertThrowsError(try MigrationRunner.run(try plan(path), store: path, options: options)) { error in
            let error = error as? MigrationError
            XCTAssertTrue(
                error.map { "\($0)" }?.contains("fails SQLite's quick check") == true, "\(String(describing: error))")
            XCTAssertEqual(error?.state?.name, "unchanged")
        }
        XCTAssertEqual(try digest(path), before)
        XCTAssertEqual(try directoryListing(path), listing)
    }
}
