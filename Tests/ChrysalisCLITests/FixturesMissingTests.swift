import Foundation
import TestSupport
import XCTest

/// A clone without `../shared`: each test that reads the Core Data fixtures says in one sentence
/// where they belong and is skipped, and under `CI=true` fails, instead of failing on a missing
/// file or stopping the run. The test bundle runs itself on such test cases, with
/// `CHRYSALIS_FIXTURES` at an empty folder.
final class FixturesMissingTests: XCTestCase {
    /// Test cases that read the fixtures, one per test target that has them (the first stopped
    /// the run with `Index out of range` when they were missing).
    static let cases = [
        "ChrysalisCLITests.MappingCommandTests", "MigrationEngineTests.ModelCorpusTests",
        "SQLiteStoreTests.RealStoreTests", "ObjectModelTests.ModelBundleFixtureTests",
        "SQLiteStoreTests.CreatedLayoutTests",
    ]

    func testWithoutTheFixturesEachTestSaysWhereTheyBelongAndIsSkipped() throws {
        let run = try runWithoutFixtures(ci: false)
        XCTAssertEqual(run.status, 0, run.output)
        XCTAssertTrue(run.output.contains("tests skipped and 0 failures"), run.output)
        for name in Self.cases {
            XCTAssertTrue(run.output.contains("Test Suite '\(name.split(separator: ".").last!)' passed"), run.output)
        }
        let sentences = run.output.components(separatedBy: "\n").filter {
            $0.contains("the Core Data fixtures are not at")
        }
        XCTAssertFalse(sentences.isEmpty, run.output)
        for sentence in sentences {
            XCTAssertTrue(sentence.contains("skipped"), sentence)
            XCTAssertTrue(sentence.contains("../shared/fixtures/coredata, beside the project root"), sentence)
            XCTAssertTrue(sentence.contains("CHRYSALIS_FIXTURES"), sentence)
        }
    }

    func testUnderCIAMissingFixtureFails() throws {
        let run = try runWithoutFixtures(ci: true)
        XCTAssertNotEqual(run.status, 0, run.output)
        XCTAssertTrue(
            run.output.contains("CI=true and this end-to-end test cannot run: the Core Data fixtures are not at"),
            run.output)
        XCTAssertFalse(run.output.contains("Index out of range"), run.output)
    }

    /// Swift Testing's suites that read the fixtures carry the `.fixtures` trait: skipped with
    /// the same sentence, run (and failed) under `CI=true`.
    func testASwiftTestingSuiteIsSkippedTheSameWayAndFailsUnderCI() throws {
        let arguments = ["--testing-library", "swift-testing", "--filter", "WireScaleScreenTests"]
        let skipped = try runWithoutFixtures(ci: false, arguments: arguments)
        XCTAssertEqual(skipped.status, 0, skipped.output)
        XCTAssertTrue(
            skipped.output.contains("Suite WireScaleScreenTests skipped: \"the Core Data fixtures are not at"),
            skipped.output)
        let failed = try runWithoutFixtures(ci: true, arguments: arguments)
        XCTAssertNotEqual(failed.status, 0, failed.output)
        XCTAssertFalse(failed.output.contains("skipped"), failed.output)
    }

    private func runWithoutFixtures(ci: Bool, arguments: [String]? = nil) throws -> (status: Int32, output: String) {
        let bundle = try XCTUnwrap(Bundle.main.executablePath, "the test bundle's own executable")
        let run = try ChrysalisRunner.run(
            arguments ?? [Self.cases.joined(separator: ",")], executable: bundle,
            environment: ["CHRYSALIS_FIXTURES": try scratchDirectory().path, "CI": ci ? "true" : "false"])
        return (run.status, run.stdout + run.stderr)
    }
}
