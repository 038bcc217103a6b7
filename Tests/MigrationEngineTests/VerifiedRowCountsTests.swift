import Demo
import Foundation
import GRDB
@testable import MigrationEngine
import SQLiteStore
import XCTest

/// A step of a plan takes the row counts the step before verified, instead of reading every
/// table again, but only while the store's files are exactly as that step left them.
final class VerifiedRowCountsTests: XCTestCase {
    private func runBookStore3To4(_ path: String, verifiedRows: VerifiedRowCounts?) throws -> MigrationReport {
        let bundle = try bookStore()
        var options = MigrationOptions(policies: DemoResources.policies)
        options.verifiedRows = verifiedRows
        return try MappingMigration.run(store: path, from: try version(bundle, "BookStore 3"), to: try version(bundle, "BookStore 4"),
                                        mappings: [try DemoResources.mapping("BookStore3To4")], options: options)
    }

    /// Counts no table holds (600 books), so the report shows which counts the step used.
    private let marked = ["Category": 2, "Publication": 600, "Page": 12]

    func testAStepTakesTheCountsItIsHandedWhileTheStoreIsUntouched() throws {
        let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        try makeBookStore3(at: path)
        let handed = VerifiedRowCounts(rows: marked, fingerprint: OtherWriters.Fingerprint(store: path))
        let report = try runBookStore3To4(path, verifiedRows: handed)
        XCTAssertEqual(report.rowsBefore, marked, "the handed counts, not a count of the tables")
        // What the step verifies is its own work: every instance it inserted is there.
        XCTAssertEqual(report.rowsAfter["Publication"], 6)
        XCTAssertEqual(try rows(path, "SELECT count(*) FROM ZPUBLICATION")[0][0], 6.databaseValue)
    }

    func testAWriteSinceTheStepBeforeMakesTheStepCountAgain() throws {
        let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        try makeBookStore3(at: path)
        let handed = VerifiedRowCounts(rows: marked, fingerprint: OtherWriters.Fingerprint(store: path))
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: "INSERT INTO ZCATEGORY (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (3, 1, 1, 'Poetry')") }
        try queue.close()
        let report = try runBookStore3To4(path, verifiedRows: handed)
        XCTAssertEqual(report.rowsBefore, ["Category": 3, "Publication": 6, "Page": 12])
    }

    func testCountsThatMissAnEntityAreNotTaken() throws {
        let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        try makeBookStore3(at: path)
        let handed = VerifiedRowCounts(rows: ["Publication": 600], fingerprint: OtherWriters.Fingerprint(store: path))
        XCTAssertEqual(try runBookStore3To4(path, verifiedRows: handed).rowsBefore, ["Category": 2, "Publication": 6, "Page": 12])
    }

    func testAPlansStepsAgreeOnTheRowsBetweenThem() throws {
        let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        try makeBookStore3(at: path)
        let bundle = try bookStore()
        let plan = try MigrationPlan.make(store: path, bundle: bundle, mappings: [try DemoResources.mapping("BookStore3To4"), try DemoResources.mapping("BookStore4To5")])
        let report = try MigrationRunner.run(plan, store: path, options: MigrationOptions(policies: DemoResources.policies))
        XCTAssertEqual(report.steps.count, 2)
        XCTAssertEqual(report.steps[1].rowsBefore, report.steps[0].rowsAfter)
        XCTAssertEqual(report.steps[1].rowsAfter, ["Category": 2, "Publication": 6, "Page": 12])
    }
}
