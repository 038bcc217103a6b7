import Foundation
import GRDB
import TestSupport
import XCTest

/// `migrate --check-pages` on a store with a damaged page in the middle of a table (issue 32 §1):
/// the full check refuses it before any write; without it, `plan` and a schema-only step read no
/// page of that table, and the step leaves the damage as it found it, as Core Data would.
final class CheckPagesCommandTests: XCTestCase {
    private let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Sources/Demo/Resources")
    private var bundle: String { resources.appendingPathComponent("BookStore.xcdatamodeld").path }

    /// A BookStore store at its first version, 256 bytes of one of its `ZBOOK` leaf pages overwritten.
    private func damagedStore() throws -> String {
        let store = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        let made = try ChrysalisRunner.run([
            "fixture", bundle, "--version", "BookStore", "--rows", "3000", "--out", store,
        ])
        XCTAssertEqual(made.status, 0, made.stderr)
        try DamagedPage.overwrite(leafOf: "ZBOOK", in: store)
        return store
    }

    func testCheckPagesRefusesADamagedStoreAndChangesNothing() throws {
        let store = try damagedStore()
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let result = try ChrysalisRunner.run([
            "migrate", store, "--model", bundle, "--to", "BookStore 2", "--check-pages",
        ])
        XCTAssertEqual(result.status, 1, result.stdout)
        XCTAssertTrue(result.stderr.contains("fails SQLite's quick check"), result.stderr)
        XCTAssertTrue(result.stderr.contains("nothing was changed"), result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "one line: \(result.stderr)")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)), before)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: (store as NSString).deletingLastPathComponent),
            ["BookStore.sqlite"],
            "no backup, journal or lock left beside it")
    }

    func testWithoutItASchemaOnlyStepReadsNoPageOfTheDamagedTable() throws {
        let store = try damagedStore()
        let plan = try ChrysalisRunner.run(["plan", store, "--model", bundle, "--to", "BookStore 2"])
        XCTAssertEqual(plan.status, 0, plan.stderr)
        let migrate = try ChrysalisRunner.run([
            "migrate", store, "--model", bundle, "--to", "BookStore 2", "--no-backup",
        ])
        XCTAssertEqual(migrate.status, 0, migrate.stderr)
        let queue = try DatabaseQueue(path: store)
        defer { try? queue.close() }
        XCTAssertNotEqual(
            try queue.read { try String.fetchAll($0, sql: "PRAGMA quick_check") }, ["ok"],
            "the damage it never touched is still there")
    }

    /// A mapping step's new store is verified by its row counts; `--check-pages` reads every
    /// page of it too, before the swap (and of the store before the first write). The SQL log
    /// (`CHRYSALIS_LOG=trace`) shows each `quick_check` SQLite ran.
    func testCheckPagesAlsoReadsEveryPageOfAMappingStepsNewStore() throws {
        let mapping = resources.appendingPathComponent("Mappings/BookStore4To5.mapping.yaml").path
        var checks: [Int] = []
        for extra in [[], ["--check-pages"]] {
            let store = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
            let made = try ChrysalisRunner.run([
                "fixture", bundle, "--version", "BookStore 4", "--rows", "500", "--out", store,
            ])
            XCTAssertEqual(made.status, 0, made.stderr)
            let result = try ChrysalisRunner.run(
                ["migrate", store, "--model", bundle, "--mappings", mapping, "--no-backup"] + extra,
                environment: ["CHRYSALIS_LOG": "trace"])
            XCTAssertEqual(result.status, 0, result.stderr)
            checks.append(result.stderr.components(separatedBy: "quick_check").count - 1)
        }
        XCTAssertEqual(
            checks, [0, 2],
            "none by default; with --check-pages the store before the first write and the new store before the swap")
    }
}
