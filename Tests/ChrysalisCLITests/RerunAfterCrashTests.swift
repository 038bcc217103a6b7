import Foundation
import GRDB
import TestSupport
import XCTest

/// After a crash, running the same command again must finish the job: the states a killed
/// migration leaves (found by the crash harness) each get a test of their own here.
final class RerunAfterCrashTests: FixtureTestCase {
    private let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Sources/Demo/Resources")

    private var bundle: String { resources.appendingPathComponent("BookStore.xcdatamodeld").path }

    /// A new folder holding `BookStore.sqlite` at `version` with `rows` generated rows per root entity.
    private func bookStore(version: String, rows: Int) throws -> (URL, String) {
        let directory = try scratchDirectory()
        let store = directory.appendingPathComponent("BookStore.sqlite").path
        let made = try ChrysalisRunner.run([
            "fixture", bundle, "--version", version, "--rows", String(rows), "--out", store,
        ])
        XCTAssertEqual(made.status, 0, made.stderr)
        return (directory, store)
    }

    /// Killed after its first step committed, a chain given every mapping on the command line is
    /// run again with the same command: the mapping already applied is not an error.
    func testTheSameCommandCarriesOnAfterAStepIsDone() throws {
        let books = resources.appendingPathComponent("Books")
        let store = try Fixtures.copyStore(
            try XCTUnwrap(Fixtures.stores.first { $0.lastPathComponent == "Model1.sqlite" }),
            into: try scratchDirectory())
        let mappings = ["Model1_to_Model2", "Model2_to_Model3_User", "Model2_to_Model3"].flatMap {
            ["--mappings", books.appendingPathComponent("\($0).xcmappingmodel").path]
        }
        let command =
            ["migrate", store.path, "--model", books.appendingPathComponent("Model.xcdatamodeld").path] + mappings
        // Where a chain killed after its first step leaves the store.
        let first = try ChrysalisRunner.demos(
            Array(command.prefix(4)) + [
                "--to", "Model2", "--mappings", books.appendingPathComponent("Model1_to_Model2.xcmappingmodel").path,
            ])
        XCTAssertEqual(first.status, 0, first.stderr)
        let rest = try ChrysalisRunner.demos(command)
        XCTAssertEqual(rest.status, 0, rest.stderr)
        XCTAssertTrue(rest.stdout.contains("from Model2 to Model3"), rest.stdout)
        let again = try ChrysalisRunner.demos(command)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.contains("is already at Model3: nothing to do"), again.stdout)
        // A mapping that fits neither the path nor a step behind it is still refused.
        let wrong = try ChrysalisRunner.demos([
            "migrate", store.path, "--model", books.appendingPathComponent("Model.xcdatamodeld").path,
            "--mappings", resources.appendingPathComponent("Mappings/BookStore3To4.mapping.yaml").path,
        ])
        XCTAssertEqual(wrong.status, 1, wrong.stdout)
        XCTAssertTrue(wrong.stderr.contains("fits no version of this model bundle"), wrong.stderr)
    }

    /// Killed after its last commit but before it let go, a migration leaves its lock and work
    /// files; the next run finds nothing to migrate and still cleans them up.
    func testNothingToDoStillCleansUpLeftovers() throws {
        let (directory, store) = try bookStore(version: "BookStore 2", rows: 5)
        for leftover in [
            "BookStore.sqlite.chrysalis-lock", ".BookStore.sqlite.chrysalis-work", ".BookStore.sqlite.chrysalis-new",
        ] {
            XCTAssertTrue(
                FileManager.default.createFile(
                    atPath: directory.appendingPathComponent(leftover).path, contents: Data("x".utf8)))
        }
        let result = try ChrysalisRunner.demos(["migrate", store, "--model", bundle, "--to", "BookStore 2"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("nothing to do"), result.stdout)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), ["BookStore.sqlite"])
    }

    /// Killed mid-transaction, a writer on a rollback-journal store leaves a hot journal. `inspect`
    /// and `plan` only read, so they report it and touch nothing; `migrate` lets SQLite roll it
    /// back first, then migrates.
    func testAHotRollbackJournalIsRolledBackFirst() throws {
        let (_, store) = try bookStore(version: "BookStore", rows: 2000)
        _ = try DatabaseQueue(path: store).writeWithoutTransaction { db in
            try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE")
        }
        let titles = try DatabaseQueue(path: store).read { db in
            try String?.fetchAll(db, sql: "SELECT ztitle FROM zbook ORDER BY z_pk")
        }
        // A writer that dies mid-transaction, after its small cache spilled changes into the file.
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")  // Debian's python3, installed by .ci/run
        python.arguments = [
            "-c",
            """
            import os, sqlite3, sys
            db = sqlite3.connect(sys.argv[1], isolation_level=None)
            db.execute("PRAGMA cache_size = 5")
            db.execute("BEGIN")
            db.execute("UPDATE zbook SET ztitle = ztitle || ' (changed)'")
            os._exit(0)
            """, store,
        ]
        try python.run()
        python.waitUntilExit()
        let journal =
            (try FileManager.default.attributesOfItem(atPath: store + "-journal")[.size] as? NSNumber)?.intValue ?? 0
        XCTAssertGreaterThan(journal, 0, "the dead writer left a hot journal")

        let bytes = try Data(contentsOf: URL(fileURLWithPath: store)),
            journalBytes = try Data(contentsOf: URL(fileURLWithPath: store + "-journal"))
        for command in ["inspect", "plan"] {
            let result = try ChrysalisRunner.run([command, store, "--model", bundle])
            XCTAssertEqual(result.status, 1, result.stdout)
            XCTAssertTrue(
                result.stderr.contains("has an unfinished transaction a writer that crashed left in \(store)-journal"),
                result.stderr)
            XCTAssertTrue(result.stderr.contains("run `chrysalis migrate`, which rolls it back first"), result.stderr)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)), bytes, "\(command) wrote nothing")
            XCTAssertEqual(
                try Data(contentsOf: URL(fileURLWithPath: store + "-journal")), journalBytes,
                "\(command) left the journal")
        }
        let migrate = try ChrysalisRunner.demos(["migrate", store, "--model", bundle, "--to", "BookStore 2"])
        XCTAssertEqual(migrate.status, 0, migrate.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: store + "-journal"), "rolled back")
        XCTAssertEqual(
            try DatabaseQueue(path: store).read { db in
                try String?.fetchAll(db, sql: "SELECT ztitle FROM zbook ORDER BY z_pk")
            }, titles,
            "the dead writer's change undone, then migrated")
    }
}
