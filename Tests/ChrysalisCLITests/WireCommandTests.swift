import Foundation
import TestSupport
import XCTest

/// A shipped app's real stores, upgraded from the command line with no options, as the app's
/// Core Data upgrades them: `plan` shows one inferred step and why, `migrate` carries it out.
final class WireCommandTests: FixtureTestCase {
    private let bundle = Fixtures.root.appendingPathComponent("wire-ios-data-model/Resources/zmessaging.xcdatamodeld")
        .path

    private func copyOfStore(_ name: String) throws -> URL {
        let directory = try Fixtures.makeTemporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return try Fixtures.copyStore(
            Fixtures.root.appendingPathComponent("wire-ios-data-model/Tests/Resources/\(name)"), into: directory)
    }

    func testPlanShowsOneInferredStepWithItsFindings() throws {
        let store = try copyOfStore("store2-3.wiredatabase")
        let before = try Data(contentsOf: store)
        let result = try ChrysalisRunner.run(["plan", store.path, "--model", bundle])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("zmessaging2.3 → zmessaging2.101.0, 1 step"), result.stdout)
        XCTAssertTrue(result.stdout.contains("1. zmessaging2.3 → zmessaging2.101.0  [lightweight]"), result.stdout)
        XCTAssertTrue(
            result.stdout.contains(
                "why: progressive: no mapping model covers zmessaging2.3 → zmessaging2.101.0, so one step is inferred straight to it, across 85 versions in between"
            ),
            result.stdout)
        XCTAssertTrue(result.stdout.contains("• rename: Conversation.allMessages renamed from messages"), result.stdout)
        XCTAssertTrue(
            result.stdout.contains("• data dropped: Conversation.isSilenced removed"),
            "2.3's isSilenced has no renaming identifier: \(result.stdout)")
        XCTAssertEqual(try Data(contentsOf: store), before, "plan touches nothing")
        let stepwise = try ChrysalisRunner.run(["plan", store.path, "--model", bundle, "--stepwise", "--json"])
        XCTAssertEqual(stepwise.status, 0, stepwise.stderr)
        let plan = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(stepwise.stdout.utf8)) as? [String: Any])
        let steps = try XCTUnwrap(plan["steps"] as? [[String: Any]])
        XCTAssertEqual(
            steps.count, 80,
            "the 86 versions after 2.3 but the 6 that share the hashes of the version a step starts from")
        XCTAssertEqual(steps.first?["reason"] as? String, "iterative: one step per consecutive pair of versions")
    }

    func testBothRealStoresMigrateWithNoOptions() throws {
        for name in ["store2-3.wiredatabase", "store2-90-0.wiredatabase"] {
            let store = try copyOfStore(name)
            let result = try ChrysalisRunner.run(["migrate", store.path, "--model", bundle])
            XCTAssertEqual(result.status, 0, "\(name): \(result.stderr)")
            let backup = store.deletingLastPathComponent().appendingPathComponent(
                name.replacingOccurrences(of: ".wiredatabase", with: "~.wiredatabase"))
            XCTAssertTrue(result.stdout.contains("The original is kept as \(backup.path)."), result.stdout)
            let inspect = try ChrysalisRunner.run(["inspect", store.path, "--model", bundle, "--json"])
            let json = try XCTUnwrap(
                try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as? [String: Any])
            XCTAssertEqual(json["matchedVersion"] as? String, "zmessaging2.101.0", name)
            XCTAssertEqual(json["compatibleWithCurrent"] as? Bool, true, name)
        }
    }

    /// A store whose model is in no version of the bundle is planned and migrated from the model
    /// it archived in Z_MODELCACHE, straight to the current version, as Core Data does; `plan`
    /// says so. Wire's `store2-65-0` is one; a store at 2.64.0, with the versions of its hashes
    /// taken out of a copy of the bundle, is another made on purpose.
    func testAStoreWhoseModelIsNotInTheBundleMigratesFromItsOwnModel() throws {
        let trimmed = try Fixtures.makeTemporaryDirectory().appendingPathComponent("zmessaging.xcdatamodeld")
        addTeardownBlock { try? FileManager.default.removeItem(at: trimmed.deletingLastPathComponent()) }
        try FileManager.default.copyItem(atPath: bundle, toPath: trimmed.path)
        for version in ["zmessaging2.64.0.xcdatamodel", "zmessaging2.65.0.xcdatamodel"] {
            try FileManager.default.removeItem(at: trimmed.appendingPathComponent(version))
        }
        for (name, model) in [("store2-65-0.wiredatabase", bundle), ("store2-64-0.wiredatabase", trimmed.path)] {
            let store = try copyOfStore(name)
            let before = try Data(contentsOf: store)
            let plan = try ChrysalisRunner.run(["plan", store.path, "--model", model])
            XCTAssertEqual(plan.status, 0, "\(name): \(plan.stderr)")
            XCTAssertTrue(
                plan.stdout.contains("1. the store's own model (Z_MODELCACHE) → zmessaging2.101.0  [lightweight]"),
                plan.stdout)
            XCTAssertTrue(
                plan.stdout.contains(
                    "inferred straight from the store's own model (Z_MODELCACHE) to zmessaging2.101.0, as Core Data does"
                ), plan.stdout)
            XCTAssertEqual(try Data(contentsOf: store), before, "plan touches nothing")
            let stepwise = try ChrysalisRunner.run(["plan", store.path, "--model", model, "--stepwise"])
            XCTAssertNotEqual(stepwise.status, 0)
            XCTAssertTrue(stepwise.stderr.contains("use --strategy automatic"), stepwise.stderr)
            let result = try ChrysalisRunner.run(["migrate", store.path, "--model", model])
            XCTAssertEqual(result.status, 0, "\(name): \(result.stderr)")
            let inspect = try ChrysalisRunner.run(["inspect", store.path, "--model", model, "--json"])
            let json = try XCTUnwrap(
                try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as? [String: Any])
            XCTAssertEqual(json["matchedVersion"] as? String, "zmessaging2.101.0", name)
        }
    }
}
