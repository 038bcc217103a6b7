import Foundation
import GRDB
import TestSupport
import XCTest

/// The staged demo in the console, in a real terminal: each handler is a step of the plan, its
/// work shows as its own stage, step mode stops after it as after any step, and each stop's
/// tables come once, after the stop's last step.
final class StagedConsoleTests: XCTestCase {
    func testStepModeStopsAfterEachHandler() throws {
        try EndToEnd.require(TmuxSession.available, "tmux is not installed")
        let directory = try scratchDirectory()
        let binary = Bundle.main.bundleURL.appendingPathComponent("chrysalis").path
        let tmux = try TmuxSession(
            "\(binary) demo staged --rows 2000 --dir \(TmuxSession.quote(directory.path))", width: 100, height: 30)
        try tmux.wait(for: "Versions of Shelf")
        try tmux.send("Tab", "Tab", "Tab")
        try tmux.wait(
            for: "1. at Shelf 1  [handler]", "2. Shelf 1 → Shelf 2  [lightweight]", "3. at Shelf 2  [handler]")
        try tmux.send("s")
        let first = try tmux.wait(
            for: "Step 1 done and verified. Enter runs step 2: Shelf 1 → Shelf 2.", "✓ Step 1: at Shelf 1")
        XCTAssertTrue(first.contains("Step 1/4  at Shelf 1 · the app's handler, in one transaction"), first)
        XCTAssertNotNil(
            first.range(of: #"Author: \d+ → \d+ rows"#, options: .regularExpression),
            "the handler's result says what it changed, in numbers:\n\(first)")
        try tmux.send("Enter")
        let second = try tmux.wait(for: "Step 2 done and verified. Enter runs step 3: at Shelf 2.")
        XCTAssertFalse(second.contains("ZBOOKCOUNT"), "the stop's tables wait for its didMigrate:\n\(second)")
        try tmux.send("Enter")
        try tmux.wait(for: "Step 3 done and verified", "ZBOOKCOUNT", "willMigrate merged them first")
        try tmux.send("c")
        try tmux.wait(for: "Migrated Shelf 1 → Shelf 3", "4 steps")
        try tmux.send("q")
        try tmux.wait(for: "EXIT:0")
        let store = directory.appendingPathComponent("Shelf.sqlite").path
        let shared = try DatabaseQueue(path: store).read {
            try Int.fetchOne($0, sql: "SELECT count(*) - count(DISTINCT ZNAME) FROM ZAUTHOR")
        }
        XCTAssertEqual(shared, 0, "one author per name")
    }

    /// A kill after a handler committed its work leaves a store that still has its version's
    /// hashes but not its data: the plan journal and the noted backup must bring the original
    /// back, byte for byte. The console's step mode holds the plan right there, and the test kills it.
    func testAKillAfterAHandlerCommittedIsUndoneByRecovery() throws {
        try EndToEnd.require(TmuxSession.available, "tmux is not installed")
        let shelf = ExamplePackage.project.appendingPathComponent("Sources/Demo/Resources/Shelf.xcdatamodeld").path
        let store = try scratchDirectory().appendingPathComponent("Shelf.sqlite").path
        XCTAssertEqual(
            try ChrysalisRunner.run(["fixture", shelf, "--version", "Shelf 1", "--rows", "500", "--out", store]).status,
            0)
        let original = try Data(contentsOf: URL(fileURLWithPath: store))
        let tmux = try TmuxSession(
            "\(ChrysalisRunner.demos.path) console \(TmuxSession.quote(store)) --model \(TmuxSession.quote(shelf)) --strategy staged --step",
            width: 100,
            height: 30)
        try tmux.wait(for: "Step 1 done and verified. Enter runs step 2")
        XCTAssertNotEqual(
            try Data(contentsOf: URL(fileURLWithPath: store)), original, "the handler's work is committed")
        let kill = Process()
        kill.executableURL = URL(fileURLWithPath: "/usr/bin/pkill")
        kill.arguments = ["-KILL", "-f", "console \(store)"]
        try kill.run()
        kill.waitUntilExit()
        try tmux.wait(for: "EXIT:137")
        let recovered = try ChrysalisRunner.run(["recover", store])
        XCTAssertEqual(recovered.status, 0, recovered.stderr)
        XCTAssertTrue(recovered.stdout.contains("the original, at Shelf 1, was put back"), recovered.stdout)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)), original, "the original, byte for byte")
        let again = try ChrysalisRunner.demos([
            "migrate", store, "--model", shelf, "--strategy", "staged", "--no-backup",
        ])
        XCTAssertEqual(again.status, 0, again.stderr)
    }
}
