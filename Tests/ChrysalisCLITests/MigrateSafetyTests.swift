import Foundation
import TestSupport
import XCTest

/// `migrate` as a careful user meets it: every error says where the store stands, `--json` ends
/// with an error event, a store behind a symbolic link is migrated where it lives, and a dry run
/// works on a read-only store and leaves nothing behind, whether it succeeds or fails.
final class MigrateSafetyTests: FixtureTestCase {
    private let sample = Fixtures.root.appendingPathComponent("CoreDataPlus/Tests/Resources/SampleModel")
    private let books = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Sources/Demo/Resources/Books")

    private func dryRunFolders() throws -> Set<String> {
        Set(
            try FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path).filter {
                $0.hasPrefix("chrysalis-dry-run-")
            })
    }

    /// A compiled mapping whose policy this build does not register: refused before any work,
    /// and the JSON output ends with the error event saying the store is unchanged.
    func testJSONEndsWithAnErrorEventThatSaysWhereTheStoreStands() throws {
        let store = try Fixtures.copyStore(
            sample.appendingPathComponent("Fixtures/SampleModel_V2.sqlite"), into: try scratchDirectory())
        let before = try Data(contentsOf: store)
        let result = try ChrysalisRunner.run([
            "migrate", store.path, "--model", sample.appendingPathComponent("SampleModel.xcdatamodeld").path,
            "--mappings", sample.appendingPathComponent("Fixtures/V2toV3.cdm").path, "--to", "SampleModel3", "--json",
        ])
        XCTAssertEqual(result.status, 1)
        let last = try XCTUnwrap(result.stdout.split(separator: "\n").last)
        let event = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        XCTAssertEqual(event["event"] as? String, "error")
        XCTAssertEqual(event["state"] as? String, "unchanged")
        XCTAssertTrue(
            (event["message"] as? String)?.contains("REPLACE_AT_RUNTIME.V2to3MakerPolicy") == true, "\(event)")
        XCTAssertTrue((event["message"] as? String)?.contains("the store was not changed") == true, "\(event)")
        XCTAssertEqual(try Data(contentsOf: store), before)
    }

    func testAStoreBehindASymbolicLinkIsMigratedWhereItLives() throws {
        let folder = try scratchDirectory()
        let real = folder.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: real, withIntermediateDirectories: true)
        let store = try Fixtures.copyStore(
            try XCTUnwrap(Fixtures.stores.first { $0.lastPathComponent == "Model1.sqlite" }), into: real)
        let link = folder.appendingPathComponent("Books.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: store.path)
        let result = try ChrysalisRunner.run([
            "migrate", link.path, "--model", books.appendingPathComponent("Model.xcdatamodeld").path, "--to", "Model2",
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(
            try FileManager.default.destinationOfSymbolicLink(atPath: link.path), store.path, "the link is kept")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: real.path).sorted(),
            ["Model1.sqlite", "Model1~.sqlite"], "migrated where it lives")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(), ["Books.sqlite", "data"])
        let inspect = try ChrysalisRunner.run([
            "inspect", link.path, "--model", books.appendingPathComponent("Model.xcdatamodeld").path,
        ])
        XCTAssertTrue(inspect.stdout.contains("Version     Model2 of Model"), inspect.stdout)
    }

    func testADryRunOfAReadOnlyStoreWorksAndLeavesNothing() throws {
        let folder = try scratchDirectory()
        let store = try Fixtures.copyStore(
            try XCTUnwrap(Fixtures.stores.first { $0.lastPathComponent == "Model1.sqlite" }), into: folder)
        XCTAssertEqual(chmod(store.path, 0o444), 0)
        let before = try dryRunFolders()
        let result = try ChrysalisRunner.run([
            "migrate", store.path, "--model", books.appendingPathComponent("Model.xcdatamodeld").path, "--dry-run",
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("Dry run: a copy of \(store.path) from Model1 to Model3"), result.stdout)
        XCTAssertEqual(try dryRunFolders(), before, "the copy is removed")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["Model1.sqlite"])
        // Without --dry-run a read-only store is refused before any work.
        let refused = try ChrysalisRunner.run([
            "migrate", store.path, "--model", books.appendingPathComponent("Model.xcdatamodeld").path,
        ])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(
            refused.stderr.contains("the store is read-only (mode 444); the store is as it was, at Model1"),
            refused.stderr)
        XCTAssertFalse(refused.stderr.contains("chrysalis-new"), refused.stderr)
    }

    func testAFailedDryRunLeavesNoCopyBehind() throws {
        let store = try Fixtures.copyStore(
            sample.appendingPathComponent("Fixtures/SampleModel_V2.sqlite"), into: try scratchDirectory())
        let before = try dryRunFolders()
        let result = try ChrysalisRunner.run([
            "migrate", store.path, "--model", sample.appendingPathComponent("SampleModel.xcdatamodeld").path,
            "--mappings", sample.appendingPathComponent("Fixtures/V2toV3.cdm").path, "--to", "SampleModel3",
            "--dry-run",
        ])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(try dryRunFolders(), before, "the failed dry run's copy is removed")
        XCTAssertEqual(result.stderr.components(separatedBy: "Fix:").count, 2, "one Fix: \(result.stderr)")
    }
}
