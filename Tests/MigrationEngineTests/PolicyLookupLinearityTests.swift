import Demo
import Foundation
import ObjectModel
import SQLiteStore
import XCTest

@testable import MigrationEngine

/// The objc.io Books chain, Model1 → Model3 through the real mapping models and the demo's
/// policies, at two sizes: the SQL work per source row must stay flat. The policies look up
/// destination Users by `userId` (no index in the model) and unique Authors by name in the
/// manager's state, as policy authors write them; a look-up that scanned a table, or state that
/// was copied per row, would make the work per row grow with the store.
///
/// Work is SQLite's virtual-machine instructions on the migration's connection (counted by
/// ``SQLiteWorkCounter``), never time: the count is the same on every machine and run.
final class PolicyLookupLinearityTests: XCTestCase {
    func testTheBooksChainDoesTheSameWorkPerRowAtTwiceTheRows() throws {
        let small = try workPerRow(rows: 1_500)
        let large = try workPerRow(rows: 3_000)
        let growth = large / small
        print(
            "Books chain: \(Int(small)) VM steps per row at 1,500 rows, \(Int(large)) at 3,000 (×\(String(format: "%.3f", growth)))"
        )
        // Linear work gives a ratio near 1 (fixed costs spread over more rows push it below);
        // one scan per look-up gave 1.9 at these sizes.
        XCTAssertLessThan(
            growth, 1.15, "the work per row grew with the store: a look-up or the state is not O(1) per row")
    }

    /// Builds the demo's store (the real Model1.sqlite plus `rows` generated rows per root entity),
    /// migrates it to Model3, and returns the SQL work per source row.
    private func workPerRow(rows: Int) throws -> Double {
        let directory = try scratchDirectory()
        let path = directory.appendingPathComponent("Books.sqlite").path
        try makeBooksModel1(at: path, rows: rows)
        let bundle = try ModelBundle.read(at: DemoResources.booksBundle)

        let counter = SQLiteWorkCounter()
        let options = MigrationOptions(
            policies: DemoResources.policies, configureManager: { counter.attach(to: $0.stores.connection) })
        _ = try MappingMigration.run(
            store: path, from: try version(bundle, "Model1"), to: try version(bundle, "Model2"),
            mappings: [try DemoResources.booksMapping("Model1_to_Model2")], options: options)
        _ = try MappingMigration.run(
            store: path, from: try version(bundle, "Model2"), to: try version(bundle, "Model3"),
            mappings: [
                try DemoResources.booksMapping("Model2_to_Model3_User"),
                try DemoResources.booksMapping("Model2_to_Model3"),
            ], options: options)
        return Double(counter.steps) / Double(rows)
    }
}
