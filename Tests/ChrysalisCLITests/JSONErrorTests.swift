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
            let last = try XCTUnwrap(
                result.stdout.split(separator: "\n").last, "\(arguments) printed nothing on standard output")
            let event = try XCTUnwrap(
                try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any], "\(arguments): \(last)")
            XCTAssertEqual(event["event"] as? String, "error", "\(arguments)")
            XCTAssertEqual(event["state"] as? String, "unchanged", "\(arguments)")
            XCTAssertEqual(event["status"] as? Int, Int(status), "\(arguments)")
            XCTAssertFalse((event["message"] as? String ?? "").isEmpty, "\(arguments)")
            XCTAssertFalse(result.stderr.isEmpty, "\(arguments): people reading the terminal are told too")
        }
    }
}

/// check-history in a temporary folder that fills up: said as the environment's failure, never
/// as versions of the model that do not migrate; a killed run's folder is reclaimed.
final class CheckHistoryEnvironmentTests: XCTestCase {
    func testAFullTemporaryFolderIsSaidAsOneNotBlamedOnTheModel() throws {
        let volume = try TinyVolume(megabytes: 2, test: self)
        try volume.fill(leaving: 64 * 1024)
        let bundle = ChrysalisRunner.demoResources.appendingPathComponent("BookStore.xcdatamodeld").path
        let result = try ChrysalisRunner.run(
            ["check-history", bundle, "--rows", "400"], environment: ["TMPDIR": volume.root.path])
        XCTAssertEqual(result.status, 1, result.stdout)
        XCTAssertTrue(
            result.stderr.contains("the temporary folder \(volume.root.path) (TMPDIR) filled up"), result.stderr)
        XCTAssertTrue(result.stderr.contains("this says nothing of BookStore's history"), result.stderr)
        XCTAssertFalse(result.stdout.contains("do not migrate"), result.stdout)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: volume.root.path).filter { $0.hasPrefix("chrysalis-") },
            [], "its folder is removed")
    }

    func testAKilledRunsFolderIsReclaimed() throws {
        let temporary = try scratchDirectory()
        // A pid no process has: the highest possible, never handed out on Linux.
        let abandoned = temporary.appendingPathComponent("chrysalis-history-4194304-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: abandoned, withIntermediateDirectories: false)
        try Data(count: 1024).write(to: abandoned.appendingPathComponent("version-0.sqlite"))
        let bundle = ChrysalisRunner.demoResources.appendingPathComponent("BookStore.xcdatamodeld").path
        let result = try ChrysalisRunner.run(
            ["check-history", bundle, "--rows", "4"], environment: ["TMPDIR": temporary.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: abandoned.path), "the killed run's folder is removed")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: temporary.path), [], "and this run's own too")
    }
}
