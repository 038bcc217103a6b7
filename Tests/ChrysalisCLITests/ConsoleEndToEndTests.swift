import Foundation
import GRDB
import TestSupport
import XCTest

/// The console in a real terminal (tmux), driven with keys, read from the screen.
final class ConsoleEndToEndTests: XCTestCase {
    private let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Sources/Demo/Resources")
    private var binary: String { ChrysalisRunner.demos.path }

    override func setUpWithError() throws {
        try EndToEnd.require(TmuxSession.available, "tmux is not installed")
    }

    /// A BookStore 3 store with `rows` generated rows per root entity.
    private func bookStore3(rows: Int, in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("BookStore.sqlite").path
        let result = try ChrysalisRunner.run([
            "fixture", resources.appendingPathComponent("BookStore.xcdatamodeld").path, "--version", "BookStore 3",
            "--rows", String(rows), "--out", path,
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        return path
    }

    private func console(
        _ store: String, _ extra: String = "", mappings names: [String] = ["BookStore3To4", "BookStore4To5"]
    ) -> String {
        let mappings = resources.appendingPathComponent("Mappings")
        return
            "\(binary) console \(TmuxSession.quote(store)) --model \(TmuxSession.quote(resources.appendingPathComponent("BookStore.xcdatamodeld").path)) "
            + names.map {
                "--mappings \(TmuxSession.quote(mappings.appendingPathComponent("\($0).mapping.yaml").path)) "
            }.joined() + extra
    }

    private func percent(_ screen: String) -> Int? {
        guard let range = screen.range(of: #"\d+%"#, options: .regularExpression) else { return nil }
        return Int(screen[range].dropLast())
    }

    private func hashes(_ path: String) throws -> String {
        try DatabaseQueue(path: path).read { db in
            try String.fetchOne(db, sql: "SELECT hex(Z_PLIST) FROM Z_METADATA") ?? ""
        }
    }

    /// The demo in the console from the store's first version: every step of the plan runs in
    /// it, in-place ones included, each with its bar and its result pane. Step mode holds the
    /// migration after each step, so each screen read is of a migration still running.
    func testDemoRunsTheWholeChainFromBookStore1() throws {
        let directory = try scratchDirectory()
        // `chrysalis demo` brings the demos' policies itself: the plain executable runs it.
        let tmux = try TmuxSession(
            "\(ChrysalisRunner.binary.path) demo --rows 20000 --dir \(TmuxSession.quote(directory.path))")
        let versions = try tmux.wait(for: "Versions of BookStore", "(the store is here)")
        XCTAssertTrue(
            versions.contains("BookStore  (the store is here)"),
            "the console opens on the store's real version, BookStore 1:\n\(versions)")
        try tmux.send("Tab", "Tab")
        try tmux.wait(for: "Entity mappings in execution order")
        try tmux.send("j")
        try tmux.wait(for: "policy: PublicationToPublicationMigrationPolicy")
        try tmux.send("Tab")
        try tmux.wait(for: "Plan: BookStore → BookStore 5, 4 steps", "Book.author added")
        try tmux.send("s")
        let first = try tmux.wait(for: "Step mode: step 1 of 4 done", "ZAUTHOR", "Enter runs step 2")
        XCTAssertTrue(
            first.contains("Step 1/4  BookStore → BookStore 2 · lightweight, in place"),
            "the in-place step had its own bar:\n\(first)")
        XCTAssertTrue(first.contains("✓ Step 1: BookStore → BookStore 2"), "and has its own result pane:\n\(first)")
        try tmux.send("Tab", "j")
        let held = try tmux.capture()
        XCTAssertTrue(
            held.contains("Step mode: step 1 of 4 done"),
            "keys other than n, c and x do nothing while the plan runs:\n\(held)")
        try tmux.send("n")
        let second = try tmux.wait(for: "Step mode: step 2 of 4 done", "ZPUBLICATION", "The demo's own work")
        XCTAssertTrue(second.contains("Step 2/4  BookStore 2 → BookStore 3 · lightweight, in place"), second)
        let firstPercent = try XCTUnwrap(percent(first)), secondPercent = try XCTUnwrap(percent(second))
        XCTAssertLessThan(firstPercent, secondPercent, "the bar moves between two screens of the running plan")
        XCTAssertLessThan(secondPercent, 100)
        try tmux.send("c")
        let result = try tmux.wait(for: "Migrated BookStore → BookStore 5", "Migration finished")
        XCTAssertTrue(result.contains("Publication  —       20004"), "columns sized to their content: \(result)")
        XCTAssertTrue(result.contains("✓ Step 4: BookStore 4 → BookStore 5"), result)
        try tmux.send("k", "k", "k")
        try tmux.wait(for: "✓ Step 1: BookStore → BookStore 2", "ZAUTHOR")
        try tmux.send("q")
        let end = try tmux.wait(for: "EXIT:0")
        // Said once, then where the files are and how to remove them; the terminal wraps long lines.
        let said = end.replacingOccurrences(of: "\n", with: "")
        XCTAssertEqual(said.components(separatedBy: "Migrated ").count - 1, 1, "the result is said once:\n\(end)")
        XCTAssertTrue(said.contains("BookStore 5"), end)
        XCTAssertTrue(said.contains("files take") && said.contains("rm -r") && said.contains("removes them"), end)
        let rows = try DatabaseQueue(path: directory.appendingPathComponent("BookStore.sqlite").path).read { db in
            try Row.fetchAll(db, sql: "SELECT zfirstname, zlastname, zsynopsis FROM zpublication ORDER BY z_pk LIMIT 1")
                .map {
                    "\($0[0] as String? ?? "")|\($0[1] as String? ?? "")|\($0[2] as String? ?? "")"
                }
        }
        XCTAssertEqual(rows, ["John|Doe|The first book"])
    }

    /// `chrysalis console` on a plan that mixes an in-place lightweight step and mapping steps
    /// (the default, progressive route from BookStore 1): the in-place step runs in the console too.
    func testConsoleRunsAMixedPlanInPlaceStepIncluded() throws {
        let directory = try scratchDirectory()
        let path = directory.appendingPathComponent("BookStore.sqlite").path
        let made = try ChrysalisRunner.run([
            "fixture", resources.appendingPathComponent("BookStore.xcdatamodeld").path, "--version", "BookStore",
            "--rows", "50", "--out", path,
        ])
        XCTAssertEqual(made.status, 0, made.stderr)
        let tmux = try TmuxSession(console(path, "--step"), width: 80, height: 24)
        let paused = try tmux.wait(for: "Step mode: step 1 of 3 done", "Publication (")
        XCTAssertTrue(paused.contains("lightweight, in place"), paused)
        XCTAssertTrue(paused.contains("Verified:"), paused)
        try tmux.send("c")
        try tmux.wait(for: "Migrated BookStore → BookStore 5", "3 steps")
        try tmux.send("k", "k")
        try tmux.wait(for: "✓ Step 1: BookStore → BookStore 3")
        try tmux.send("q")
        try tmux.wait(for: "EXIT:0")
        let inspected = try ChrysalisRunner.run([
            "inspect", path, "--model", resources.appendingPathComponent("BookStore.xcdatamodeld").path, "--json",
        ])
        let json = try JSONSerialization.jsonObject(with: Data(inspected.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(json?["matchedVersion"] as? String, "BookStore 5", inspected.stdout)
    }

    /// `--verbose` in the console: the engine's log goes to the live log (`v`), never over the
    /// screen; the migration goes on under it, and another key closes it.
    func testVerboseLogsIntoTheLiveLogNotOverTheScreen() throws {
        let path = try bookStore3(rows: 50, in: try scratchDirectory())
        let tmux = try TmuxSession(console(path, "--step --verbose"), width: 100, height: 30)
        let paused = try tmux.wait(for: "Step mode: paused")
        XCTAssertFalse(paused.contains("[MigrationEngine]"), "nothing is written over the screen:\n\(paused)")
        try tmux.send("v")
        let log = try tmux.wait(for: " Log ", "following the newest")
        XCTAssertTrue(log.contains("trace sql: ") && log.contains(" ms "), "the SQL, with its time:\n\(log)")
        try tmux.send("g")
        try tmux.wait(for: "rows 1–", "G follows the newest", "debug migration: ")
        try tmux.send("c")
        try tmux.wait(for: "Migrated BookStore 3 → BookStore 5")
        try tmux.send("q")
        try tmux.wait(for: "EXIT:0")
    }

    /// The Plan screen shows a step's SQL under Enter, at 80×24: the statements `plan --sql`
    /// prints, compiled when the console opened; PgDn and → move through them, Esc goes back to
    /// the plan, and looking writes nothing beside the store.
    func testThePlanScreenShowsAStepsSQLUnderEnter() throws {
        let directory = try scratchDirectory()
        let path = directory.appendingPathComponent("BookStore.sqlite").path
        let made = try ChrysalisRunner.run([
            "fixture", resources.appendingPathComponent("BookStore.xcdatamodeld").path, "--version", "BookStore",
            "--rows", "50", "--out", path,
        ])
        XCTAssertEqual(made.status, 0, made.stderr)
        let files = {
            try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted().map {
                try Data(contentsOf: directory.appendingPathComponent($0))
            }
        }
        let before = try files()
        let tmux = try TmuxSession(console(path, "--stepwise"), width: 80, height: 24)
        try tmux.wait(for: "Versions of BookStore")
        try tmux.allowClipboard()
        try tmux.send("Tab", "Tab", "Tab")
        try tmux.wait(for: "Plan: BookStore → BookStore 5, 4 steps", "Enter SQL")
        // `]` goes to the next step, `y` copies its line through OSC 52 (tmux keeps it).
        try tmux.send("]", "y")
        try tmux.wait(for: "Copied the plan line")
        XCTAssertEqual(try tmux.clipboard(), "2. BookStore 2 → BookStore 3  [lightweight]")
        try tmux.send("[")
        try tmux.send("Enter")
        try tmux.wait(for: "ALTER TABLE ZBOOK ADD COLUMN ZAUTHOR VARCHAR")
        try tmux.send("y")
        try tmux.wait(for: "Copied step 1's SQL")
        let copied = try tmux.clipboard() ?? ""
        XCTAssertTrue(copied.contains("ALTER TABLE ZBOOK ADD COLUMN ZAUTHOR VARCHAR;"), "the step's SQL: \(copied)")
        let sql = try tmux.wait(
            for: "SQL of step 1/4: BookStore → BookStore 2", "ALTER TABLE ZBOOK ADD COLUMN ZAUTHOR VARCHAR", "Esc back")
        XCTAssertTrue(sql.contains("Runs in place: one transaction on the store itself"), sql)
        try tmux.send("Right", "Right")
        let mapping = try tmux.wait(for: "SQL of step 3/4: BookStore 3 → BookStore 4", "lines 1–18 of")
        XCTAssertFalse(
            mapping.split(separator: "\n").contains { $0.count > 80 },
            "long statements wrap at 80 columns, never past:\n\(mapping)")
        try tmux.send("NPage")
        try tmux.wait(for: "lines 18–35 of")
        try tmux.send("Escape")
        let plan = try tmux.wait(for: "Plan: BookStore → BookStore 5, 4 steps", "Enter SQL")
        XCTAssertFalse(plan.contains("ALTER TABLE") || plan.contains("INSERT INTO"), "Esc closed the SQL:\n\(plan)")
        XCTAssertTrue(
            plan.contains("▶ 3. BookStore 3 → BookStore 4"), "the plan selects the step whose SQL was open:\n\(plan)")
        try tmux.send("q")
        try tmux.wait(for: "EXIT:0")
        XCTAssertEqual(try files(), before, "the console writes nothing unless asked to migrate")
    }

    func testStepThroughBookStore3To4MappingByMapping() throws {
        let store = try bookStore3(rows: 50, in: try scratchDirectory())
        let tmux = try TmuxSession(console(store, "--to 'BookStore 4' --step", mappings: ["BookStore3To4"]))
        let expected = [
            ("CategoryToCategory", "create instances"), ("PublicationToPublication", "create instances"),
            ("PageToPage", "create instances"),
            ("CategoryToCategory", "create relationships"), ("PublicationToPublication", "create relationships"),
            ("PageToPage", "create relationships"),
        ]
        for (mapping, stage) in expected {
            // Consecutive pauses name different mappings, so the wait never matches the previous screen.
            let screen = try tmux.wait(for: "Paused after \(mapping)", "(\(stage)) ", "destination rows so far")
            XCTAssertTrue(screen.contains("(\(stage)) "), screen)
            XCTAssertTrue(screen.contains("destination rows so far"), screen)
            try tmux.send("n")
        }
        try tmux.wait(for: "Migrated BookStore 3 → BookStore 4")
        try tmux.send("q")
        try tmux.wait(for: "EXIT:0")
    }

    /// A presenter's auto-advance: step mode goes on by itself after each pause, counting down on
    /// the status line; any key stops it, and `a` starts it again.
    func testAutoAdvanceGoesOnByItselfUntilAKeyStopsIt() throws {
        let directory = try scratchDirectory()
        let tmux = try TmuxSession(
            "\(ChrysalisRunner.binary.path) demo --rows 2000 --auto 1 --dir \(TmuxSession.quote(directory.path))")
        let counting = try tmux.wait(for: "goes on in", "(any key stops this)")
        XCTAssertTrue(counting.contains("Step mode"), counting)
        // It goes on by itself: a later pause, or the end.
        try tmux.wait(for: "Step mode: step 2 of 4 done; goes on in")
        try tmux.send("j")
        try tmux.wait(for: "auto-advance stopped (a starts it)")
        try tmux.send("a")
        try tmux.wait(for: "Migration finished", timeout: 120)
        try tmux.send("q")
        try tmux.wait(for: "EXIT:0")
    }

    func testResizeMidMigration() throws {
        let store = try bookStore3(rows: 20000, in: try scratchDirectory())
        // Step mode holds the migration between its first two entity mappings for as long as the
        // resizing takes: run freely, a fast machine finished it before the window shrank.
        let tmux = try TmuxSession(console(store, "--start --step"))
        try tmux.wait(for: "Paused after CategoryToCategory")
        try tmux.resize(width: 80, height: 24)
        let narrow = try tmux.wait(for: "Mapping order")
        XCTAssertFalse(narrow.split(separator: "\n").contains { $0.count > 80 }, "relaid out for 80 columns")
        try tmux.resize(width: 60, height: 15)
        try tmux.wait(for: "The migration goes on.")
        try tmux.resize(width: 120, height: 40)
        try tmux.wait(for: "Paused after CategoryToCategory")
        try tmux.send("c")  // run to the end
        try tmux.wait(for: "Migrated BookStore 3 → BookStore 5", timeout: 120)
        try tmux.send("q")
        try tmux.wait(for: "EXIT:0")
    }

    func testHangUpMidMigrationFinishesOrRollsBackAndWritesAReport() throws {
        let directory = try scratchDirectory()
        let store = try bookStore3(rows: 20000, in: directory)
        let before = try hashes(store)
        let tmux = try TmuxSession(console(store, "--start"))
        try tmux.wait(for: "%")
        try tmux.hangUp()
        let report = store + ".chrysalis-report.txt"
        let deadline = Date().addingTimeInterval(120)
        while !FileManager.default.fileExists(atPath: report), Date() < deadline { Thread.sleep(forTimeInterval: 0.2) }
        let text = try String(contentsOfFile: report, encoding: .utf8)
        XCTAssertTrue(text.contains("SIGHUP"), text)
        // Wait for the process to let go of the store (its lock file goes away).
        while FileManager.default.fileExists(atPath: store + ".chrysalis-lock"), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.2)
        }
        let after = try hashes(store)
        if text.contains("result: migrated") {
            XCTAssertNotEqual(after, before, "migrated")
            XCTAssertTrue(
                FileManager.default.fileExists(atPath: directory.appendingPathComponent("BookStore~.sqlite").path))
        } else {
            XCTAssertEqual(after, before, "untouched")
        }
        XCTAssertFalse(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).contains {
                $0.contains("chrysalis-new") || $0.contains("chrysalis-work")
            })
    }

    /// SIGTERM from outside during a run: the console rolls back and then exits (issue 31 §3);
    /// before, it rolled back and stayed open. Ctrl-C, a key, asks first instead.
    func testSIGTERMMidMigrationRollsBackThenExits() throws {
        let directory = try scratchDirectory()
        let store = try bookStore3(rows: 2000, in: directory)
        let before = try hashes(store)
        // Step mode holds the run after its first entity mapping, so the signals land mid-run.
        let tmux = try TmuxSession(console(store, "--step"))
        try tmux.wait(for: "Paused after CategoryToCategory")
        try tmux.send("C-c")
        try tmux.wait(for: "Cancel the migration?")
        try tmux.send("n")
        try tmux.wait(for: "Paused after CategoryToCategory")
        let pid = try XCTUnwrap(Self.pid(of: "chrysalis-demos"), "the console's process")
        kill(pid, SIGTERM)
        let end = try tmux.wait(for: "EXIT:3", timeout: 120)
        XCTAssertTrue(end.contains("cancelled: the store is as it was"), end)
        XCTAssertEqual(try hashes(store), before, "rolled back")
    }

    /// The pid of the process whose executable is named `name` (its `comm`, not its command line,
    /// which tmux's own server shares).
    private static func pid(of name: String) -> pid_t? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).first { pid in
            (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(
                in: .whitespacesAndNewlines) == name
        }
    }
}
