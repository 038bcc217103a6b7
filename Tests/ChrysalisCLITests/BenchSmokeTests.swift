import Foundation
import GRDB
import TestSupport
import XCTest

/// `chrysalis-bench` once at 10k rows: not for its times (tests never assert timings) but to
/// prove each scenario runs and Chrysalis and the hand-written SQL make the same data.
final class BenchSmokeTests: XCTestCase {
    func testEveryScenarioMakesTheSameDataAsTheBaseline() throws {
        let names = [
            "add-attribute", "add-attribute-many-to-many", "rename-require", "compiled-transform", "custom-policy",
            "relationships", "whole-chain",
            "policy-lookups", "progress", "render",
        ]
        let result = try ChrysalisRunner.run(
            ["--rows", "10000", "--rounds", "1", "--frames", "100", "--json"] + names.flatMap { ["--scenario", $0] },
            executable: "chrysalis-bench")
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let scenarios = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:] }
        XCTAssertEqual(scenarios.compactMap { $0["scenario"] as? String }, names)
        for scenario in scenarios where !["progress", "render"].contains(scenario["scenario"] as? String) {
            XCTAssertEqual(scenario["rows"] as? Int, 10000)
            XCTAssertEqual(scenario["destinationsEqual"] as? Bool, true)
            XCTAssertGreaterThan(scenario["chrysalisSeconds"] as? Double ?? 0, 0)
            XCTAssertGreaterThan(scenario["baselineSeconds"] as? Double ?? 0, 0)
        }
        let progress = try XCTUnwrap(scenarios.first { $0["scenario"] as? String == "progress" })
        XCTAssertGreaterThan(progress["notifications"] as? Int ?? 0, 0, "the observer saw the migration's progress")
    }

    /// The real app's upgrade, on a small store: straight in one step, against its SQL run bare,
    /// both ending with the same data (its timing is for the release build, never asserted here).
    func testTheWireUpgradeRunsAgainstItsSQL() throws {
        let result = try ChrysalisRunner.run(
            ["--scenario", "wire-upgrade", "--rows", "30", "--rounds", "1", "--json"], executable: "chrysalis-bench")
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(json["scenario"] as? String, "wire-upgrade")
        XCTAssertEqual(json["destinationsEqual"] as? Bool, true, "the bench checked both stores hold the same data")
        XCTAssertGreaterThan(
            json["tablesRebuilt"] as? Int ?? 0, 0, "the straight step rebuilds tables: \(result.stdout)")
        XCTAssertGreaterThan(json["baselineSeconds"] as? Double ?? 0, 0)
    }

    /// The ETA scenario runs the Wire upgrade with its backup, hearing every post, and judges
    /// the ETA shown (its error is for the release build, never asserted here).
    func testTheETAScenarioJudgesWhatWasShown() throws {
        let result = try ChrysalisRunner.run(
            ["--scenario", "eta", "--rows", "30", "--json"], executable: "chrysalis-bench")
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(json["scenario"] as? String, "eta")
        XCTAssertGreaterThan(json["seconds"] as? Double ?? 0, 0)
        XCTAssertGreaterThanOrEqual(
            json["worstError"] as? Double ?? 0, 1, "an error is a ratio of at least 1: \(result.stdout)")
        XCTAssertNotNil(json["moments"] as? Int)
    }

    func testAnUnknownScenarioIsNamedWithTheChoices() throws {
        let result = try ChrysalisRunner.run(["--scenario", "add-atribute"], executable: "chrysalis-bench")
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(
            result.stderr.contains(
                "no scenario add-atribute; use one of: add-attribute, add-attribute-many-to-many, check-history, compiled-transform, console-first-frame, console-keys, custom-policy, eta, policy-lookups, progress, rebuild-many-to-many, rebuild-ordered, rebuild-to-many, rebuild-type, relationships, rename-require, render, whole-chain, wire-upgrade"
            ), result.stderr)
    }

    /// `--check` prints every scenario it ran against its goal, and its exit status is the
    /// table's verdict: 1 when a scenario missed its goal, 0 when none did.
    func testCheckPrintsTheTableAndExitsWithItsVerdict() throws {
        let result = try ChrysalisRunner.run(
            ["--check", "--scenario", "add-attribute", "--scenario", "rebuild-type", "--rows", "200", "--rounds", "1"],
            executable: "chrysalis-bench")
        let table = try XCTUnwrap(
            result.stdout.range(of: "chrysalis-bench --check at 200 rows per root entity").map {
                String(result.stdout[$0.lowerBound...])
            },
            result.stdout + result.stderr)
        let rows = table.split(separator: "\n").filter { $0.hasPrefix("add-attribute") || $0.hasPrefix("rebuild-type") }
        XCTAssertEqual(rows.count, 2, table)
        XCTAssertTrue(rows[0].contains("≤ 20 ms") && rows[1].contains("≤ 1.10×"), table)
        let missed = rows.filter { $0.hasSuffix("MISSED") }.count
        XCTAssertEqual(rows.filter { $0.hasSuffix(" ok") }.count + missed, 2, table)
        XCTAssertEqual(result.status, missed == 0 ? 0 : 1, table)
        XCTAssertTrue(
            table.contains(missed == 0 ? "every scenario meets its goal" : "\(missed) of 2 scenarios miss their goal"),
            table)
    }

    /// The check every scenario passes before it reports must catch a changed value, a missing
    /// link in a join table, and a missing row, and name the table.
    func testTheDestinationCheckCatchesOneChangedValueOrMissingRow() throws {
        let directory = try Fixtures.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("Benchmarks/Models/Library.xcdatamodeld").path
        let original = directory.appendingPathComponent("a.sqlite").path
        let made = try ChrysalisRunner.run([
            "fixture", bundle, "--version", "Library 2", "--rows", "300", "--out", original,
        ])
        XCTAssertEqual(made.status, 0, made.stderr)
        let cases: [(change: String, message: String)] = [
            ("", "hold the same data"),
            ("UPDATE ZBOOK SET ZTITLE = ZTITLE || '!' WHERE Z_PK = 7", "ZBOOK: 1 of 300 rows in"),
            ("DELETE FROM Z_1TAGS WHERE rowid = (SELECT min(rowid) FROM Z_1TAGS)", "Z_1TAGS:"),
            ("DELETE FROM ZPAGE WHERE Z_PK = 3", "ZPAGE: 300 rows in"),
        ]
        for (index, item) in cases.enumerated() {
            let copy = directory.appendingPathComponent("b\(index).sqlite").path
            try FileManager.default.copyItem(atPath: original, toPath: copy)
            if !item.change.isEmpty { try DatabaseQueue(path: copy).write { try $0.execute(sql: item.change) } }
            let result = try ChrysalisRunner.run(["--compare", original, copy], executable: "chrysalis-bench")
            XCTAssertEqual(result.status == 0, item.change.isEmpty, "\(item.change): \(result.stderr)")
            XCTAssertTrue(
                (result.stdout + result.stderr).contains(item.message),
                "\(item.change): \(result.stdout) \(result.stderr)")
        }
    }
}
