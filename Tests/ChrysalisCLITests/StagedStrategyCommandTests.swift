import Foundation
import GRDB
import TestSupport
import XCTest

/// `--strategy` on the command line: each strategy by name, the errors that teach, and the
/// staged migration an app registers in its own build (`Examples/StagedMigrator`), run on the
/// staged demo's Shelf bundle as the app runs it on devices.
final class StagedStrategyCommandTests: XCTestCase {
    private let shelf = ExamplePackage.project.appendingPathComponent("Sources/Demo/Resources/Shelf.xcdatamodeld").path

    /// A Shelf 1 store whose authors repeat names (the generator draws names from a short list), and how many authors it has.
    private func shelfOne() throws -> (path: String, authors: Int, names: Int) {
        let path = try scratchDirectory().appendingPathComponent("Shelf.sqlite").path
        let made = try ChrysalisRunner.run(["fixture", shelf, "--version", "Shelf 1", "--rows", "200", "--out", path])
        XCTAssertEqual(made.status, 0, made.stderr)
        let (authors, names) = try DatabaseQueue(path: path).read {
            (
                try Int.fetchOne($0, sql: "SELECT count(*) FROM ZAUTHOR") ?? 0,
                try Int.fetchOne($0, sql: "SELECT count(DISTINCT ZNAME) FROM ZAUTHOR") ?? 0
            )
        }
        XCTAssertLessThan(names, authors, "the store has authors sharing a name")
        return (path, authors, names)
    }

    func testEachStrategyByNameAndTheErrorsThatTeach() throws {
        let help = try ChrysalisRunner.run(["plan", "--help"])
        for name in ["automatic", "iterative", "progressive (the default)", "staged", "--stepwise"] {
            XCTAssertTrue(help.stdout.contains(name), "plan --help names \(name)")
        }
        let (path, _, _) = try shelfOne()
        let both = try ChrysalisRunner.run(["plan", path, "--model", shelf, "--stepwise", "--strategy", "automatic"])
        XCTAssertEqual(both.status, 2, "a usage error")
        XCTAssertTrue(both.stderr.contains("--stepwise is --strategy iterative"), both.stderr)
        let staged = try ChrysalisRunner.run(["plan", path, "--model", shelf, "--strategy", "staged"])
        XCTAssertEqual(staged.status, 1)
        XCTAssertTrue(staged.stderr.contains("this build of the command line has none"), staged.stderr)
        XCTAssertTrue(staged.stderr.contains("Examples/StagedMigrator"), staged.stderr)
        for strategy in ["automatic", "iterative", "progressive"] {
            let refused = try ChrysalisRunner.run(["migrate", path, "--model", shelf, "--strategy", strategy])
            XCTAssertEqual(refused.status, 1, strategy)
            XCTAssertTrue(refused.stderr.contains("Author.name becomes unique ("), "\(strategy): \(refused.stderr)")
            XCTAssertTrue(refused.stderr.contains("--strategy staged"), "\(strategy): \(refused.stderr)")
        }
    }

    /// The example's build registers its stages: `--strategy staged` runs the handlers around the
    /// lightweight steps, and `check-history --strategy staged` proves the bundle that way.
    func testTheExampleRunsTheAppsStages() throws {
        let binary = try ExamplePackage("StagedMigrator", product: "shelf-migrator").build(log: try scratchDirectory())
        let (path, _, names) = try shelfOne()
        let plan = try ExamplePackage.run(binary, ["plan", path, "--model", shelf, "--strategy", "staged"])
        // Whether the handler leaves the names unique is known only when the step after it runs.
        XCTAssertEqual(plan.status, 4, plan.output)
        XCTAssertTrue(plan.output.contains("  • step 2 (Shelf 1 → Shelf 2): Author.name becomes unique"), plan.output)
        XCTAssertTrue(plan.output.contains("1. at Shelf 1  [handler]"), plan.output)
        XCTAssertTrue(plan.output.contains("2. Shelf 1 → Shelf 2  [lightweight]"), plan.output)
        let migrated = try ExamplePackage.run(
            binary, ["migrate", path, "--model", shelf, "--strategy", "staged", "--no-backup"])
        XCTAssertEqual(migrated.status, 0, migrated.output)
        XCTAssertTrue(
            migrated.output.contains("at Shelf 1 (willMigrate of the custom stage \"unique author names\": 1 save)"),
            migrated.output)
        try DatabaseQueue(path: path).read { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM ZAUTHOR"), names, "one author per name")
            XCTAssertEqual(
                try Int.fetchOne(
                    db,
                    sql:
                        "SELECT count(*) FROM ZAUTHOR a WHERE ZBOOKCOUNT != (SELECT count(*) FROM ZBOOK b WHERE b.ZAUTHOR = a.Z_PK)"
                ), 0,
                "every author's bookCount is its books")
        }
        let inspect = try ChrysalisRunner.run(["inspect", path, "--model", shelf, "--json"])
        let inspected = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(inspected["matchedVersion"] as? String, "Shelf 3", inspect.stdout)
        // --json: each handler's work is a stage of its own in the progress events.
        let (again, _, _) = try shelfOne()
        let json = try ExamplePackage.run(
            binary, ["migrate", again, "--model", shelf, "--strategy", "staged", "--json"])
        XCTAssertEqual(json.status, 0, json.output)
        let handlerEvents = json.output.split(separator: "\n").filter { $0.contains("\"stage\":\"run a handler\"") }
        XCTAssertTrue(
            handlerEvents.contains { $0.contains("\"step\":1") }
                && handlerEvents.contains { $0.contains("\"step\":3") }, json.output)
        let history = try ExamplePackage.run(binary, ["check-history", shelf, "--strategy", "staged"])
        XCTAssertEqual(history.status, 0, history.output)
        XCTAssertTrue(
            history.output.contains("All 3 versions of Shelf checked migrate to Shelf 3 (staged)"), history.output)
    }
}
