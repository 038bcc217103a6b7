import Foundation
import TestSupport
import XCTest

/// `chrysalis console … | cat` said "the console needs a terminal (TERM set, not dumb)", false
/// there, then printed the whole usage. It says what is missing, gives the `chrysalis migrate`
/// command that runs the same plan, whole, to paste, and changes nothing.
final class ConsoleWithoutTerminalTests: XCTestCase {
    func testAPipeIsNamedAndMigrateSuggested() throws {
        let bundle = ChrysalisRunner.demoResources.appendingPathComponent("BookStore.xcdatamodeld").path
        let store = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        XCTAssertEqual(
            try ChrysalisRunner.run(["fixture", bundle, "--version", "BookStore", "--rows", "5", "--out", store])
                .status, 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let run = try ChrysalisRunner.run(["console", store, "--model", bundle, "--to", "BookStore 2", "--step"])
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertTrue(run.stderr.contains("standard output is not a terminal (a pipe or a file)"), run.stderr)
        // The whole command, to paste: the console's own flags left out, a name with a space quoted.
        XCTAssertTrue(
            run.stderr.contains("`chrysalis migrate \(store) --model \(bundle) --to 'BookStore 2'`"), run.stderr)
        XCTAssertFalse(run.stderr.contains("Usage:") || run.stderr.contains("TERM set"), run.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)), before)
    }
}
