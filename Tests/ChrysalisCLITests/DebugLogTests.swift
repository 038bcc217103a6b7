import Foundation
import TestSupport
import XCTest

/// `--verbose` and `CHRYSALIS_LOG` show the plan's decisions and every SQL statement with its
/// time on standard error, as Core Data's MigrationDebug and SQLDebug do; without them, nothing.
final class DebugLogTests: FixtureTestCase {
    private let model = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Sources/Demo/Resources/Books/Model.xcdatamodeld").path

    private func store() throws -> String {
        let directory = try Fixtures.makeTemporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return try Fixtures.copyStore(
            try XCTUnwrap(Fixtures.stores.first { $0.lastPathComponent == "Model1.sqlite" }), into: directory
        ).path
    }

    func testVerboseLogsDecisionsAndStatements() throws {
        let verbose = try ChrysalisRunner.run(["migrate", try store(), "--model", model, "--verbose"])
        XCTAssertEqual(verbose.status, 0, verbose.stderr)
        XCTAssertTrue(
            verbose.stderr.contains(
                "chrysalis.migration: [MigrationEngine] step Model1 → Model3: progressive: no mapping model covers"),
            verbose.stderr)
        XCTAssertTrue(verbose.stderr.contains("running step 1/1 Model1 → Model3 [lightweight]"), verbose.stderr)
        XCTAssertTrue(verbose.stderr.contains(" ms  ALTER TABLE"), "every statement with its time")
        let quiet = try ChrysalisRunner.run(["migrate", try store(), "--model", model])
        XCTAssertEqual(quiet.status, 0, quiet.stderr)
        XCTAssertFalse(quiet.stderr.contains("chrysalis.sql"), quiet.stderr)
        XCTAssertFalse(quiet.stderr.contains("chrysalis.migration"), quiet.stderr)
    }

    func testTheEnvironmentChoosesTheLevelForAnyCommand() throws {
        let process = Process()
        process.executableURL = ChrysalisRunner.binary
        process.arguments = ["plan", try store(), "--model", model]
        process.environment = ProcessInfo.processInfo.environment.merging(["CHRYSALIS_LOG": "debug"]) { $1 }
        let error = Pipe()
        process.standardError = error
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertTrue(text.contains("read as Model1"), text)
        XCTAssertFalse(text.contains("chrysalis.sql"), "debug shows decisions, not statements: \(text)")
    }

    /// A `CHRYSALIS_LOG` naming no level is a usage error that lists the levels, before any
    /// command runs: a typo must not silently log nothing, nor touch the store.
    func testAnUnknownLevelIsRefusedNamingTheLevels() throws {
        let path = try store()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let run = try ChrysalisRunner.run(
            ["migrate", path, "--model", model], environment: ["CHRYSALIS_LOG": "verbos"])
        XCTAssertEqual(run.status, 2, run.stderr)
        XCTAssertTrue(run.stderr.contains("CHRYSALIS_LOG=verbos is not a log level"), run.stderr)
        XCTAssertTrue(run.stderr.contains("trace, debug, info"), run.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before, "the store is untouched")
        let upper = try ChrysalisRunner.run(["plan", path, "--model", model], environment: ["CHRYSALIS_LOG": "DEBUG"])
        XCTAssertEqual(upper.status, 0, "a level in capitals is the level: \(upper.stderr)")
        XCTAssertTrue(upper.stderr.contains("read as Model1"), upper.stderr)
    }
}
