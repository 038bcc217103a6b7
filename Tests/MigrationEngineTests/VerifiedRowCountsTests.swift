import Demo
import Foundation
import GRDB
import ObjectModel
import SQLiteStore
import XCTest

@testable import MigrationEngine

/// A step of a plan takes the row counts the step before verified, instead of reading every
/// table again, but only while the store's files are exactly as that step left them.
final class VerifiedRowCountsTests: XCTestCase {
    private func runBookStore3To4(_ path: String, verifiedRows: VerifiedRowCounts?) throws -> MigrationReport {
        let bundle = try bookStore()
        var context = MigrationOptions(policies: DemoResources.policies).stepContext
        context.verifiedRows = verifiedRows
        return try MappingMigration.run(
            store: path, from: try version(bundle, "BookStore 3"), to: try version(bundle, "BookStore 4"),
            mappings: [try DemoResources.mapping("BookStore3To4")], context: context)
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
        try queue.write { db in
            try db.execute(sql: "INSERT INTO ZCATEGORY (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (3, 1, 1, 'Poetry')")
        }
        try queue.close()
        let report = try runBookStore3To4(path, verifiedRows: handed)
        XCTAssertEqual(report.rowsBefore, ["Category": 3, "Publication": 6, "Page": 12])
    }

    func testARowTheStepCannotCarryShowsInItsReport() throws {
        let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        try makeBookStore3(at: path)
        // A damaged row: in Publication's table, with Category's entity number.
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            let category = try XCTUnwrap(
                Int.fetchOne(db, sql: "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Category'"))
            try db.execute(
                sql: "INSERT INTO ZPUBLICATION (Z_PK, Z_ENT, Z_OPT, ZTITLE) VALUES (99, ?, 1, 'stray')",
                arguments: [category])
        }
        try queue.close()
        let report = try runBookStore3To4(path, verifiedRows: nil)
        XCTAssertEqual(
            report.rowsBefore, ["Category": 2, "Publication": 7, "Page": 12], "the table's rows, the damaged one too")
        XCTAssertEqual(report.rowsAfter["Publication"], 6, "the six that are Publications")
    }

    func testCountsThatMissAnEntityAreNotTaken() throws {
        let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        try makeBookStore3(at: path)
        let handed = VerifiedRowCounts(rows: ["Publication": 600], fingerprint: OtherWriters.Fingerprint(store: path))
        XCTAssertEqual(
            try runBookStore3To4(path, verifiedRows: handed).rowsBefore, ["Category": 2, "Publication": 6, "Page": 12])
    }

    func testAPlansStepsAgreeOnTheRowsBetweenThem() throws {
        let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        try makeBookStore3(at: path)
        let bundle = try bookStore()
        let plan = try MigrationPlan.make(
            store: path, bundle: bundle,
            mappings: [try DemoResources.mapping("BookStore3To4"), try DemoResources.mapping("BookStore4To5")])
        let report = try MigrationRunner.run(
            plan, store: path, options: MigrationOptions(policies: DemoResources.policies))
        XCTAssertEqual(report.steps.count, 2)
        XCTAssertEqual(report.steps[1].rowsBefore, report.steps[0].rowsAfter)
        XCTAssertEqual(report.steps[1].rowsAfter, ["Category": 2, "Publication": 6, "Page": 12])
    }

    /// A rebuilt step's counts are what the next step takes: they must be the store's, for every
    /// entity, including one no source maps to.
    func testARebuiltStepReportsTheRowsOfEveryEntityAsTheStoreHoldsThem() throws {
        func version(_ name: String, _ body: String) throws -> ModelBundle.Version {
            ModelBundle.Version(
                name: name,
                model: try ModelXMLReader.read(
                    Data(
                        """
                        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">\(body)</model>
                        """.utf8), file: name))
        }
        let books = """
            <entity name="Book"><attribute name="title" optional="YES" attributeType="String"/>\
            <relationship name="tags" optional="YES" toMany="YES" destinationEntity="Tag" inverseName="books" inverseEntity="Tag"/></entity>\
            <entity name="Tag"><relationship name="books" optional="YES" toMany="YES" destinationEntity="Book" inverseName="tags" inverseEntity="Book"/></entity>
            """
        let v1 = try version("v1", books)
        // A many-to-many's join table is always rebuilt (in the step's transaction). Note is new:
        // no source maps to it.
        let v2 = try version(
            "v2",
            books + #"<entity name="Note"><attribute name="text" optional="YES" attributeType="String"/></entity>"#)
        let path = try scratchDirectory().appendingPathComponent("Books.sqlite").path
        let store = try PersistentStore.create(at: path, model: v1.model)
        try store.writeObjects(StoreLayout(model: v1.model)) { writer in
            let tag = try writer.insert("Tag")
            for title in ["a", "b", "c"] {
                try writer.relate(try writer.insert("Book", ["title": .string(title)]), "tags", to: [tag])
            }
        }
        try store.close()
        let report = try InPlaceMigration.run(store: path, from: v1, to: v2)
        XCTAssertEqual(report.passes, ["inferred, in place"])
        XCTAssertEqual(report.rowsAfter, ["Book": 3, "Note": 0, "Tag": 1])
        XCTAssertEqual(report.rowsAfter, try PersistentStore.open(at: path).rowCounts(model: v2.model))
    }
}
