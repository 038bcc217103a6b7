import Foundation
import XCTest

/// `chrysalis-bench` once at 10k rows: not for its times (tests never assert timings) but to
/// prove each scenario runs and Chrysalis and the hand-written SQL make the same data.
final class BenchSmokeTests: XCTestCase {
    func testEveryScenarioMakesTheSameDataAsTheBaseline() throws {
        let result = try ChrysalisRunner.run(["--rows", "10000", "--rounds", "1", "--frames", "100", "--json"], executable: "chrysalis-bench")
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let scenarios = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:] }
        XCTAssertEqual(scenarios.compactMap { $0["scenario"] as? String },
                       ["add-attribute", "rename-require", "compiled-transform", "custom-policy", "relationships", "whole-chain", "progress", "render"])
        for scenario in scenarios where !["progress", "render"].contains(scenario["scenario"] as? String) {
            XCTAssertEqual(scenario["rows"] as? Int, 10000)
            XCTAssertEqual(scenario["destinationsEqual"] as? Bool, true)
            XCTAssertGreaterThan(scenario["chrysalisSeconds"] as? Double ?? 0, 0)
            XCTAssertGreaterThan(scenario["baselineSeconds"] as? Double ?? 0, 0)
        }
        let progress = try XCTUnwrap(scenarios.first { $0["scenario"] as? String == "progress" })
        XCTAssertGreaterThan(progress["notifications"] as? Int ?? 0, 0, "the observer saw the migration's progress")
    }

    func testAnUnknownScenarioIsNamedWithTheChoices() throws {
        let result = try ChrysalisRunner.run(["--scenario", "add-atribute"], executable: "chrysalis-bench")
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("no scenario add-atribute; use one of: add-attribute, compiled-transform, custom-policy, progress, relationships, rename-require, render, whole-chain"), result.stderr)
    }
}
