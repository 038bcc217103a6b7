import Foundation
import TestSupport
import XCTest

/// Every command given `--json` ends its standard output with JSON, failures and usage errors
/// included: a script reading it never gets silence.
final class JSONErrorTests: XCTestCase {
    func testEveryCommandThatFailsEndsWithAJSONErrorObject() throws {
        let bundle = ChrysalisRunner.demoResources.appendingPathComponent("BookStore.xcdatamodeld").path
        let missing = try scratchDirectory().appendingPathComponent("Missing.sqlite").path
        let cases: [([String], Int32)] = [
            (["plan", missing, "--model", bundle, "--json"], 1),
            (["inspect", missing, "--json"], 1),
            (["model", missing, "--json"], 1),
            (["check-history", missing, "--json"], 1),
            (["mapping", missing, "--json"], 1),
            (["plan", "--json"], 2),
            (["inspect", "--json", "--no-such-option"], 2),
        ]
        for (arguments, status) in cases {
            let result = try ChrysalisRunner.run(arguments)
            XCTAssertEqual(result.status, status, "\(arguments): \(result.stderr)")
            let last = try XCTUnwrap(result.stdout.split(separator: "\n").last, "\(arguments) printed nothing on standard output")
            let event = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any], "\(arguments): \(last)")
            XCTAssertEqual(event["event"] as? String, "error", "\(arguments)")
            XCTAssertEqual(event["state"] as? String, "unchanged", "\(arguments)")
            XCTAssertEqual(event["status"] as? Int, Int(status), "\(arguments)")
            XCTAssertFalse((event["message"] as? String ?? "").isEmpty, "\(arguments)")
            XCTAssertFalse(result.stderr.isEmpty, "\(arguments): people reading the terminal are told too")
        }
    }
}
