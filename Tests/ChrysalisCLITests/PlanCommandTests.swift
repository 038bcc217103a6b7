import Foundation
import GRDB
import ObjectModel
import TestSupport
import XCTest

/// `chrysalis plan` and `migrate --dry-run` on the real objc.io store: they touch nothing.
final class PlanCommandTests: FixtureTestCase {
    private let books = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Sources/Demo/Resources/Books")

    private func store() throws -> (URL, URL) {
        let directory = try Fixtures.makeTemporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return (
            directory,
            try Fixtures.copyStore(
                try XCTUnwrap(Fixtures.stores.first { $0.lastPathComponent == "Model1.sqlite" }), into: directory)
        )
    }

    func testPlanJSONWithAFolderOfMappings() throws {
        let (directory, store) = try store()
        let before = try Data(contentsOf: store)
        let result = try ChrysalisRunner.demos([
            "plan", store.path, "--model", books.appendingPathComponent("Model.xcdatamodeld").path,
            "--mappings", books.path, "--json",
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        let plan = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(plan["storeVersion"] as? String, "Model1")
        XCTAssertEqual(plan["targetVersion"] as? String, "Model3")
        let steps = try XCTUnwrap(plan["steps"] as? [[String: Any]])
        XCTAssertEqual(steps.compactMap { $0["kind"] as? String }, ["mapping", "mapping"])
        XCTAssertEqual(
            steps[1]["mappings"] as? [String], ["Model2_to_Model3", "Model2_to_Model3_User"],
            "within a folder, by file name")
        XCTAssertEqual((steps[1]["entityMappings"] as? [String])?.first, "Model2_to_Model3: File")
        XCTAssertEqual(try Data(contentsOf: store), before)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["Model1.sqlite"])
    }

    func testPlanWithoutMappingsInfersAndWarnsAboutDroppedData() throws {
        let (_, store) = try store()
        let result = try ChrysalisRunner.demos([
            "plan", store.path, "--model", books.appendingPathComponent("Model.xcdatamodeld").path,
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("1. Model1 → Model3  [lightweight]"), result.stdout)
        XCTAssertTrue(
            result.stdout.contains(
                "why: progressive: no mapping model covers Model1 → Model3, so one step is inferred straight to it, across 1 version in between"
            ),
            result.stdout)
        XCTAssertTrue(result.stdout.contains("• data dropped: Book.authorName removed"), result.stdout)
        XCTAssertTrue(result.stdout.contains("• data dropped: Book.fileURL removed"), result.stdout)
    }

    func testDryRunLeavesTheStoreAlone() throws {
        let (directory, store) = try store()
        let before = try Data(contentsOf: store)
        let result = try ChrysalisRunner.demos([
            "migrate", store.path, "--model", books.appendingPathComponent("Model.xcdatamodeld").path, "--dry-run",
            "--mappings", books.appendingPathComponent("Model1_to_Model2.xcmappingmodel").path,
            "--mappings", books.appendingPathComponent("Model2_to_Model3_User.xcmappingmodel").path,
            "--mappings", books.appendingPathComponent("Model2_to_Model3.xcmappingmodel").path,
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("Dry run: a copy of \(store.path) from Model1 to Model3"), result.stdout)
        XCTAssertTrue(result.stdout.contains("File                 — → 4"), result.stdout)
        XCTAssertEqual(try Data(contentsOf: store), before)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["Model1.sqlite"])
    }

    func testUsageErrorsExitWithTwoAndNothingToDoWithZero() throws {
        let (_, store) = try store()
        XCTAssertEqual(try ChrysalisRunner.demos(["migrate", store.path]).status, 2, "--model is required")
        XCTAssertEqual(
            try ChrysalisRunner.demos([
                "plan", store.path, "--model", books.appendingPathComponent("Model.xcdatamodeld").path, "--to",
                "Model9",
            ]).status, 1)
        let current = try ChrysalisRunner.demos([
            "migrate", store.path, "--model", books.appendingPathComponent("Model.xcdatamodeld").path, "--to", "Model1",
        ])
        XCTAssertEqual(current.status, 0, current.stderr)
        XCTAssertTrue(current.stdout.contains("is already at Model1: nothing to do"), current.stdout)
    }

    /// V2 adds an optional `body`, V3 makes it required without a default: step 2's requirement
    /// depends on rows step 1 writes, so `plan --stepwise` cannot know it now. It says so, with
    /// the step, and exits 4; one step straight across is checked against the rows, and passes.
    func testALaterStepsRowCheckIsSaidAndSetsTheExitStatus() throws {
        let directory = try scratchDirectory()
        let entities = [
            #"<attribute name="title" optional="YES" attributeType="String"/>"#,
            #"<attribute name="body" optional="YES" attributeType="String"/><attribute name="title" optional="YES" attributeType="String"/>"#,
            #"<attribute name="body" attributeType="String"/><attribute name="title" optional="YES" attributeType="String"/>"#,
        ]
        let versions = try entities.enumerated().map { index, attributes in
            ModelBundle.Version(
                name: "V\(index + 1)",
                model: try ModelXMLReader.read(
                    Data(
                        #"<?xml version="1.0" encoding="UTF-8"?><model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0"><entity name="Note">\#(attributes)</entity></model>"#
                            .utf8), file: "V\(index + 1)"))
        }
        let bundle = directory.appendingPathComponent("App.xcdatamodeld")
        try ModelBundle(name: "App", versions: versions, currentVersionName: "V3").write(to: bundle)
        let store = directory.appendingPathComponent("App.sqlite").path
        let made = try ChrysalisRunner.run(["fixture", bundle.path, "--version", "V1", "--rows", "0", "--out", store])
        XCTAssertEqual(made.status, 0, made.stderr)

        let stepwise = try ChrysalisRunner.run(["plan", store, "--model", bundle.path, "--stepwise"])
        XCTAssertEqual(stepwise.status, 4, stepwise.stderr)
        XCTAssertTrue(
            stepwise.stdout.contains(
                "Checked only when the step runs (the rows it needs are written by the steps before it):\n"
                    + "  • step 2 (V2 → V3): Note.body becomes required and has no default value"), stepwise.stdout)
        let json = try ChrysalisRunner.run(["plan", store, "--model", bundle.path, "--stepwise", "--json"])
        XCTAssertEqual(json.status, 4, json.stderr)
        let plan = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(
            plan["checkedWhenRun"] as? [String],
            ["step 2 (V2 → V3): Note.body becomes required and has no default value"])

        let straight = try ChrysalisRunner.run(["plan", store, "--model", bundle.path])
        XCTAssertEqual(straight.status, 0, straight.stdout + straight.stderr)
        XCTAssertFalse(straight.stdout.contains("Checked only when"), straight.stdout)
    }
}
