import Demo
import Foundation
@testable import MigrationEngine
import ObjectModel
import SQLiteStore
import XCTest

/// An in-place step's table count moves as its statements run (issue 31 §5), not all at once at
/// the end: the step reports the share of its statements done after each one.
final class InPlaceProgressTests: XCTestCase {
    func testTheShareOfStatementsDoneRisesWithEachStatement() throws {
        let bundle = try bookStore()
        let (from, to) = (try version(bundle, "BookStore 2"), try version(bundle, "BookStore 3"))
        let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        let store = try PersistentStore.create(at: path, model: from.model)
        try DataGenerator(model: from.model).fill(store, rows: 10)
        try store.close()
        let opened = try PersistentStore.open(at: path, mode: .readWrite)
        let metadata = try opened.metadata()
        let layouts = (try opened.layout(for: from.model), StoreLayout(model: to.model))
        var shares: [Double] = []
        try opened.withConnection { connection in
            try connection.inTransaction {
                try LightweightMigration(connection: connection, inference: InferredMapping(from: from, to: to), source: layouts.0, destination: layouts.1, path: path)
                    .run(metadata: metadata) { shares.append($0) }
            }
        }
        try opened.close()
        XCTAssertGreaterThan(shares.count, 3, "a share after each statement, the indexes and the derived attributes")
        XCTAssertEqual(shares, shares.sorted(), "never goes back")
        XCTAssertEqual(shares.last, 1)
        XCTAssertLessThan(shares.first ?? 1, 1, "the first statement is not the whole step")
    }
}
