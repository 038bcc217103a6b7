import Demo
import Foundation
import GRDB
import MigrationEngine
import ObjectModel
import SQLiteStore
import XCTest

/// Other processes and the store (issue 29 §1): an app holding an idle connection is found
/// before the first write and named; a write another process commits while a plan runs is
/// never erased by putting the original back, and the message says where the store stands.
final class OtherProcessTests: XCTestCase {
    private func bookStore1() throws -> String {
        let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        let model = try version(try bookStore(), "BookStore").model
        let store = try PersistentStore.create(at: path, model: model)
        try DataGenerator(model: model).fill(store, rows: 40)
        try store.close()
        return path
    }

    /// A real other process (python3's sqlite3 module, as an app's would) with the store open and
    /// idle: it has read once and holds no lock. Ends when the test ends.
    private func appHoldingTheStore(_ path: String, journalMode: String) throws -> Process {
        let app = Process()
        app.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let script = """
            import sqlite3, sys, time
            c = sqlite3.connect(sys.argv[1], isolation_level=None)
            c.execute("PRAGMA journal_mode=\(journalMode)").fetchall()
            c.execute("SELECT count(*) FROM Z_METADATA").fetchall()
            print("open", flush=True)
            time.sleep(60)
            """
        app.arguments = ["python3", "-c", script, path]
        let output = Pipe()
        app.standardOutput = output
        try app.run()
        addTeardownBlock {
            app.terminate(); app.waitUntilExit()
        }
        let line = output.fileHandleForReading.availableData
        XCTAssertEqual(
            String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), "open",
            "the app opened the store")
        return app
    }

    private func plan(_ path: String) throws -> MigrationPlan {
        try MigrationPlan.make(
            store: path, bundle: try bookStore(),
            mappings: [try DemoResources.mapping("BookStore3To4"), try DemoResources.mapping("BookStore4To5")],
            strategy: .iterative)
    }

    func testAnAppWithTheStoreOpenIsNamedBeforeTheFirstWrite() throws {
        for mode in ["WAL", "DELETE"] {
            let path = try bookStore1()
            let app = try appHoldingTheStore(path, journalMode: mode)
            let before = try digest(path)
            XCTAssertThrowsError(
                try MigrationRunner.run(
                    try plan(path), store: path, options: MigrationOptions(policies: DemoResources.policies))
            ) { error in
                let text = "\(error)"
                XCTAssertEqual((error as? MigrationError)?.kind, .locked, text)
                XCTAssertTrue(
                    text.contains("is open in another process: pid \(app.processIdentifier) (python3 -c"), text)
                XCTAssertTrue(text.contains("the store is as it was, at BookStore; nothing was changed"), text)
            }
            XCTAssertEqual(try digest(path), before, "\(mode): not a byte changed")
            app.terminate()
            app.waitUntilExit()
            let report = try MigrationRunner.run(
                try plan(path), store: path, options: MigrationOptions(policies: DemoResources.policies),
                keepBackup: false)
            XCTAssertEqual(
                report.steps.last?.destinationVersion, "BookStore 5", "\(mode): once the app quits, the same plan runs")
        }
    }

    func testAWriteCommittedDuringALaterStepIsKeptAndSaid() throws {
        let path = try bookStore1()
        let steps = StepCounter()
        // While step 3 (BookStore 3 → 4, a mapping step) copies the store, an app commits a row.
        let options = MigrationOptions(
            policies: DemoResources.policies,
            configureManager: { manager in
                try BookStoreSynopsis.install(on: manager)
                guard steps.next() == 0 else { return }
                let app = try DatabaseQueue(path: path)
                try app.write { db in
                    try db.execute(
                        sql:
                            "INSERT INTO ZCATEGORY (Z_ENT, Z_OPT, ZNAME) VALUES ((SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Category'), 1, 'Written by the app')"
                    )
                }
                try app.close()
            })
        XCTAssertThrowsError(try MigrationRunner.run(try plan(path), store: path, options: options, keepBackup: false))
        { error in
            let text = "\(error)"
            XCTAssertEqual((error as? MigrationError)?.kind, .otherWriter, text)
            XCTAssertEqual((error as? MigrationError)?.state?.name, "keptOtherWrites", text)
            XCTAssertTrue(
                text.contains(
                    "the store is at BookStore 3, after 2 of 4 steps, with the other process's changes, which are kept: the original was not put back over them; the original, without them, is kept as "
                ), text)
            XCTAssertFalse(text.contains("put back, byte for byte"), text)
            XCTAssertFalse(text.contains("delete those rows"), "never tells a user to delete good rows: \(text)")
        }
        XCTAssertEqual(
            try rows(path, "SELECT count(*) FROM ZCATEGORY WHERE ZNAME = 'Written by the app'"), [[1.databaseValue]],
            "the app's row is there")
        XCTAssertFalse(
            FileManager.default.fileExists(
                atPath: URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(
                    ".BookStore.sqlite.chrysalis-plan"
                ).path),
            "no journal left to put the original back over the app's row later")
        XCTAssertTrue(
            FileManager.default.fileExists(
                atPath: path.replacingOccurrences(of: "BookStore.sqlite", with: "BookStore~.sqlite")),
            "the original is kept, as said")
    }

    /// A row an app still on the old model writes between two steps, in the same tick of the
    /// file clock (here: its times put back as they were, its size unchanged by the insert):
    /// nothing about the file says so, the next step's row count trips on it, and the plan once
    /// put its original back over it. Every failure path now asks first, and the row is kept.
    func testARowWrittenBetweenStepsUnseenByTheFilesTimesIsKept() throws {
        let path = try bookStore1()
        var options = MigrationOptions(
            policies: DemoResources.policies, configureManager: { try BookStoreSynopsis.install(on: $0) })
        options.afterStep = { completed in
            guard completed.index == 2 else { return }
            var before = stat()
            XCTAssertEqual(stat(path, &before), 0)
            let app = try DatabaseQueue(path: path)
            try app.write { db in
                try db.execute(
                    sql:
                        "INSERT INTO ZCATEGORY (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES ((SELECT max(Z_PK) + 1 FROM ZCATEGORY), (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Category'), 1, 'Written by the app')"
                )
            }
            try app.close()
            var after = stat()
            XCTAssertEqual(stat(path, &after), 0)
            XCTAssertEqual(after.st_size, before.st_size, "the premise: the insert fits in a page the store has")
            var times = [before.st_atim, before.st_mtim]
            XCTAssertEqual(utimensat(AT_FDCWD, path, &times, 0), 0)
        }
        XCTAssertThrowsError(try MigrationRunner.run(try plan(path), store: path, options: options, keepBackup: false))
        { error in
            let text = "\(error)"
            XCTAssertEqual((error as? MigrationError)?.kind, .otherWriter, text)
            XCTAssertTrue(text.contains("with the other process's changes, which are kept"), text)
        }
        XCTAssertEqual(
            try rows(path, "SELECT count(*) FROM ZCATEGORY WHERE ZNAME = 'Written by the app'"), [[1.databaseValue]],
            "the app's row is there")
    }

    /// An app not yet updated (still on the first model, with its entity numbers and its own
    /// primary keys, as Core Data allocates them from `Z_PRIMARYKEY`) saves one Category between
    /// two steps, in the same tick of the file clock (its times put back). Under the intermediate
    /// model its entity number is another entity's, so a count per entity does not see it; the
    /// next step's summary of the store does, before it copies a row, and the plan keeps the
    /// row instead of putting its original back over it.
    func testAnOldModelAppsRowCommittedBetweenAnyTwoStepsIsKept() throws {
        for after in 1...3 {
            let path = try bookStore1()
            var options = MigrationOptions(
                policies: DemoResources.policies, configureManager: { try BookStoreSynopsis.install(on: $0) })
            options.afterStep = { completed in
                guard completed.index == after else { return }
                var before = stat()
                XCTAssertEqual(stat(path, &before), 0)
                var configuration = Configuration()
                configuration.busyMode = .timeout(10)
                let app = try DatabaseQueue(path: path, configuration: configuration)
                // BookStore's first model numbers Category 2; Core Data takes the key from Z_PRIMARYKEY.
                try app.write { db in
                    try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + 1 WHERE Z_ENT = 2")
                    try db.execute(
                        sql: """
                            INSERT INTO ZCATEGORY (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES \
                            ((SELECT max(Z_MAX) FROM Z_PRIMARYKEY) + 1000, 2, 1, 'Written by the old app')
                            """)
                }
                try app.close()
                var times = [before.st_atim, before.st_mtim]
                XCTAssertEqual(utimensat(AT_FDCWD, path, &times, 0), 0)
            }
            XCTAssertThrowsError(
                try MigrationRunner.run(try plan(path), store: path, options: options, keepBackup: false),
                "written after step \(after)"
            ) { error in
                XCTAssertEqual((error as? MigrationError)?.kind, .otherWriter, "after step \(after): \(error)")
                XCTAssertTrue(
                    "\(error)".contains("after \(after) of 4 steps, with the other process's changes, which are kept"),
                    "after step \(after): \(error)")
            }
            XCTAssertEqual(
                try rows(path, "SELECT count(*) FROM ZCATEGORY WHERE ZNAME = 'Written by the old app'"),
                [[1.databaseValue]], "written after step \(after): the app's row is there")
        }
    }
}

/// Counts calls from the migration's thread.
private final class StepCounter: @unchecked Sendable {
    private var count = 0
    private let lock = NSLock()
    func next() -> Int {
        lock.withLock {
            defer { count += 1 }; return count
        }
    }
}
