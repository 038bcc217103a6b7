import Foundation
import TestSupport
import XCTest

/// A reader that quits early (`| head -1`) never stops a migration half way: the plan runs to
/// its end, and standard error says what the closed output missed.
final class ClosedOutputTests: XCTestCase {
    func testAPipeClosedAfterTheFirstEventLeavesTheStoreFullyMigratedAndSaysSo() throws {
        let resources = ChrysalisRunner.demoResources
        let bundle = resources.appendingPathComponent("BookStore.xcdatamodeld").path
        let folder = try scratchDirectory()
        let store = folder.appendingPathComponent("BookStore.sqlite").path
        let made = try ChrysalisRunner.run([
            "fixture", bundle, "--version", "BookStore", "--rows", "3000", "--out", store,
        ])
        XCTAssertEqual(made.status, 0, made.stderr)
        let errors = folder.appendingPathComponent("stderr.txt").path
        let quote = { (text: String) in "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let line = [
            ChrysalisRunner.demos.path, "migrate", store, "--model", bundle, "--mappings",
            resources.appendingPathComponent("Mappings").path, "--json",
        ]
        .map(quote).joined(separator: " ")
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/bash")
        // pipefail: the migration's own status, not head's.
        shell.arguments = ["-c", "set -o pipefail; \(line) 2>\(quote(errors)) | head -1 >/dev/null"]
        try shell.run()
        shell.waitUntilExit()
        XCTAssertEqual(shell.terminationStatus, 0, "the migration ends as it would have, not killed by SIGPIPE")
        let said = try String(contentsOfFile: errors, encoding: .utf8)
        XCTAssertTrue(
            said.contains(
                "note: standard output was closed before the end (the reader of a pipe quit); the run went on: \(store) is at BookStore 5, migrated in full"
            ),
            said)
        let inspect = try ChrysalisRunner.run(["inspect", store, "--model", bundle])
        XCTAssertTrue(inspect.stdout.contains("BookStore 5"), inspect.stdout)
        XCTAssertNil(inspect.stdout.range(of: "stopped half way"), inspect.stdout)
    }
}
