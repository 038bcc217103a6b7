import Demo
import Foundation
import GRDB
import ObjectModel
import SQLiteStore
import XCTest

@testable import MigrationEngine

/// An in-place step that renumbers rows verifies them against counts taken as it found the
/// store. On a WAL store a second connection takes them while the step's statements run; it
/// must see the store as the step's transaction found it, never the step's own writes.
final class SnapshotRowCountsTests: XCTestCase {
    private func makeBookStore2(at path: String, books: Int) throws -> ManagedObjectModel {
        let model = try version(try bookStore(), "BookStore 2").model
        let store = try PersistentStore.create(at: path, model: model)
        try DataGenerator(model: model).fill(store, rows: books)
        try store.close()
        return model
    }

    func testTheSecondConnectionCountsTheStoreAsTheWritersTransactionFoundIt() throws {
        let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        let model = try makeBookStore2(at: path, books: 40)
        let expected = try PersistentStore.open(at: path).rowCounts(model: model)
        XCTAssertEqual(expected["Book"], 40)
        let store = try PersistentStore.open(at: path, mode: .readWrite)
        struct RollBack: Error {}
        try store.withConnection { connection in
            XCTAssertThrowsError(
                try connection.inTransaction(.immediate) {
                    // Uncommitted writes: half the books gone, a category added.
                    try connection.execute(SQLStatement("DELETE FROM ZBOOK WHERE Z_PK % 2 = 0"))
                    try connection.execute(
                        SQLStatement(
                            "INSERT INTO ZCATEGORY (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (999, (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Category'), 1, 'New')"
                        ))
                    XCTAssertEqual(try connection.integer(SQLStatement("SELECT count(*) FROM ZBOOK")), 20)
                    let counting = try XCTUnwrap(
                        SnapshotRowCounts.start(beside: store, model: model, entities: ["Book", "Category"]))
                    XCTAssertEqual(try counting.wait(), expected.filter { ["Book", "Category"].contains($0.key) })
                    throw RollBack()  // nothing of it is kept
                }
            ) { XCTAssertTrue($0 is RollBack, "\($0)") }
        }
        try store.close()
    }

    func testARollbackJournalStoreIsNotCountedBesideItsWriter() throws {
        let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        let model = try makeBookStore2(at: path, books: 5)
        try DatabaseQueue(path: path).writeWithoutTransaction { db in
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE")
        }
        let store = try PersistentStore.open(at: path, mode: .readWrite)
        XCTAssertNil(
            try SnapshotRowCounts.start(beside: store, model: model, entities: ["Book"]),
            "a reader would hold the writer off its commit: the step counts in its own transaction")
        try store.close()
    }

    /// BookStore 2 → 3 renames Book to Publication, which renumbers every row in place.
    func testARenumberingStepReportsTheCountsItFoundInEitherJournalMode() throws {
        for journal in ["WAL", "DELETE"] {
            let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
            let model = try makeBookStore2(at: path, books: 30)
            try DatabaseQueue(path: path).writeWithoutTransaction { db in
                _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = \(journal)")
            }
            let before = try PersistentStore.open(at: path).rowCounts(model: model)
            let report = try MigrationRunner.run(
                try MigrationPlan.make(store: path, bundle: try bookStore(), to: "BookStore 3"), store: path)
            XCTAssertEqual(report.steps.map(\.passes), [["inferred, in place"]], journal)
            XCTAssertEqual(before["Book"], 30)
            XCTAssertEqual(report.rowsBefore, before, journal)
            XCTAssertEqual(report.steps[0].rowsAfter["Publication"], 30, journal)
        }
    }
}
