import Foundation
import TestSupport
import XCTest

/// A bundle that does not say which version is current, or in what order its versions came, as
/// Fearless's `UserDataModel.xcdatamodeld` ships (an empty `.xccurrentversion`; versions
/// `UserDataModel`, the app's first release, then `MultiassetUserDataModel`, `…_v2` … `_v11`,
/// an order its code states and names do not give).
final class VersionOrderCommandTests: FixtureTestCase {
    /// A copy of Fearless's bundle, and a store made at its newest version.
    private func fearless() throws -> (bundle: URL, store: String, versions: [String]) {
        let original = try XCTUnwrap(
            Fixtures.files { $0.lastPathComponent == "UserDataModel.xcdatamodeld" && $0.path.contains("fearless") }
                .first)
        let directory = try scratchDirectory()
        let bundle = directory.appendingPathComponent("UserDataModel.xcdatamodeld")
        try FileManager.default.copyItem(at: original, to: bundle)
        let versions = try FileManager.default.contentsOfDirectory(atPath: bundle.path)
            .filter { $0.hasSuffix(".xcdatamodel") }.map { String($0.dropLast(".xcdatamodel".count)) }
        // The app's order: its first release, then the multi-asset versions by number.
        let multi = versions.filter { $0.hasPrefix("Multiasset") }.sorted {
            $0.compare($1, options: .numeric) == .orderedAscending
        }
        let newest = try XCTUnwrap(multi.last)
        let store = directory.appendingPathComponent("User.sqlite").path
        let made = try ChrysalisRunner.run([
            "fixture", bundle.path, "--version", newest, "--rows", "3", "--out", store,
        ])
        XCTAssertEqual(made.status, 0, made.stderr)
        return (bundle, store, ["UserDataModel"] + multi)
    }

    func testAGuessedCurrentVersionIsNoTargetForMigrate() throws {
        let (bundle, store, _) = try fearless()
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let plan = try ChrysalisRunner.run(["plan", store, "--model", bundle.path])
        XCTAssertEqual(plan.status, 0, plan.stderr)
        XCTAssertTrue(plan.stdout.contains("is a guess"), plan.stdout)
        let migrate = try ChrysalisRunner.run(["migrate", store, "--model", bundle.path])
        XCTAssertEqual(migrate.status, 1)
        XCTAssertTrue(migrate.stderr.contains("does not say which version is current"), migrate.stderr)
        XCTAssertTrue(migrate.stderr.contains("nothing was changed"), migrate.stderr)
        XCTAssertTrue(migrate.stderr.contains("--to"), migrate.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)), before, "byte for byte")
    }

    func testTheAppsOrderStatedBesideTheBundleOrOnTheCommandLine() throws {
        let (bundle, store, order) = try fearless()
        // Beside the bundle: the newest it lists is current, no guess, so the store needs nothing.
        try Data((order.joined(separator: "\n") + "\n").utf8).write(
            to: bundle.deletingLastPathComponent().appendingPathComponent("UserDataModel.xcdatamodeld.order"))
        let plan = try ChrysalisRunner.run(["plan", store, "--model", bundle.path])
        XCTAssertEqual(plan.status, 0, plan.stderr)
        XCTAssertTrue(plan.stdout.contains("nothing to do"), plan.stdout)
        let migrate = try ChrysalisRunner.run(["migrate", store, "--model", bundle.path])
        XCTAssertEqual(migrate.status, 0, migrate.stderr)
        // On the command line, over the file: iterative from the first release walks the app's order.
        let first = try scratchDirectory().appendingPathComponent("First.sqlite").path
        let made = try ChrysalisRunner.run([
            "fixture", bundle.path, "--version", order[0], "--rows", "2", "--out", first,
        ])
        XCTAssertEqual(made.status, 0, made.stderr)
        let walked = try ChrysalisRunner.run([
            "plan", first, "--model", bundle.path, "--strategy", "iterative", "--order",
            order.prefix(3).joined(separator: ","),
            "--to", order[2],
        ])
        XCTAssertEqual(walked.status, 0, walked.stderr)
        XCTAssertTrue(walked.stdout.contains("\(order[0]) → \(order[1])"), walked.stdout)
        XCTAssertTrue(walked.stdout.contains("\(order[1]) → \(order[2])"), walked.stdout)
        XCTAssertFalse(walked.stdout.contains("the order of versions is their names'"), walked.stdout)
        // By names the same plan is backwards, and says why and what to do.
        try FileManager.default.removeItem(
            at: bundle.deletingLastPathComponent().appendingPathComponent("UserDataModel.xcdatamodeld.order"))
        let byName = try ChrysalisRunner.run([
            "plan", first, "--model", bundle.path, "--strategy", "iterative", "--to", order[2],
        ])
        XCTAssertEqual(byName.status, 1)
        XCTAssertTrue(byName.stderr.contains("by their names, the bundle stating no order"), byName.stderr)
        XCTAssertTrue(byName.stderr.contains("--order"), byName.stderr)
        let automatic = try ChrysalisRunner.run([
            "plan", first, "--model", bundle.path, "--strategy", "automatic", "--to", order[2],
        ])
        XCTAssertEqual(automatic.status, 0, "Core Data's automatic migration knows no order: \(automatic.stderr)")
    }
}
