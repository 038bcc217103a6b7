import Foundation
import GRDB
import TestSupport
import XCTest

/// A row whose `Z_ENT` no entity of its table has (an app still on an older model wrote it)
/// passed `plan`, and stopped the mapping step that met it. `plan` names it now, with the query.
final class StrayRowsTests: XCTestCase {
    func testPlanNamesRowsNoEntityOwnsBeforeAMappingStep() throws {
        let resources = ChrysalisRunner.demoResources
        let bundle = resources.appendingPathComponent("BookStore.xcdatamodeld").path
        let store = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        XCTAssertEqual(
            try ChrysalisRunner.run(["fixture", bundle, "--version", "BookStore 3", "--rows", "20", "--out", store])
                .status, 0)
        let mappings = ["--mappings", resources.appendingPathComponent("Mappings").path, "--to", "BookStore 4"]
        XCTAssertEqual(
            try ChrysalisRunner.demos(["plan", store, "--model", bundle] + mappings).status, 0,
            "the premise: a clean store plans")
        try DatabaseQueue(path: store).write { db in
            try db.execute(
                sql:
                    "INSERT INTO ZCATEGORY (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES ((SELECT max(Z_PK) + 1 FROM ZCATEGORY), 99, 1, 'stray')"
            )
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let plan = try ChrysalisRunner.demos(["plan", store, "--model", bundle] + mappings)
        XCTAssertEqual(plan.status, 1, plan.stdout)
        XCTAssertTrue(plan.stderr.contains("holds rows no entity of BookStore 3 owns: 1 row of ZCATEGORY"), plan.stderr)
        XCTAssertTrue(
            plan.stderr.contains("SELECT Z_PK, Z_ENT FROM ZCATEGORY WHERE Z_ENT IS NULL OR Z_ENT NOT IN ("), plan.stderr
        )
        XCTAssertTrue(plan.stderr.contains("the step BookStore 3 → BookStore 4 would stop at them"), plan.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)), before, "plan writes nothing")
    }

    /// `migrate` of a plan whose in-place steps come before its mapping step: the same check runs
    /// before the first write, so no step runs only to be undone, and the store is byte for byte.
    func testMigrateChecksThemBeforeTheStepsBeforeTheMappingStep() throws {
        let resources = ChrysalisRunner.demoResources
        let bundle = resources.appendingPathComponent("BookStore.xcdatamodeld").path
        let store = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        XCTAssertEqual(
            try ChrysalisRunner.run(["fixture", bundle, "--version", "BookStore", "--rows", "20", "--out", store])
                .status, 0)
        try DatabaseQueue(path: store).write { db in
            try db.execute(
                sql:
                    "INSERT INTO ZCATEGORY (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES ((SELECT max(Z_PK) + 1 FROM ZCATEGORY), 99, 1, 'stray')"
            )
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let migrate = try ChrysalisRunner.demos([
            "migrate", store, "--model", bundle, "--mappings", resources.appendingPathComponent("Mappings").path,
            "--to", "BookStore 4", "--strategy", "iterative",
        ])
        XCTAssertEqual(migrate.status, 1, migrate.stdout)
        XCTAssertTrue(
            migrate.stderr.contains("holds rows no entity of BookStore owns: 1 row of ZCATEGORY"), migrate.stderr)
        XCTAssertTrue(migrate.stderr.contains("nothing was changed"), migrate.stderr)
        XCTAssertFalse(migrate.stderr.contains("undone"), "no step ran to be undone: \(migrate.stderr)")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)), before)
    }
}
