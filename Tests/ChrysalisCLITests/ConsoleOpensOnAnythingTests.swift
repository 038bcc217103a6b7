import Foundation
import TestSupport
import XCTest

/// A console is for looking first: on WordPress's bundle with its own mapping models, which name
/// custom policies the plain binary lacks, `chrysalis console` printed a 22-line error and exited
/// 1; with a step Core Data cannot infer, the same. It opens now, shows the versions and the plan
/// with the step that cannot run marked, says why on the Plan screen, and refuses only `m`.
final class ConsoleOpensOnAnythingTests: FixtureTestCase {
    private let folder = Fixtures.root.appendingPathComponent("wordpress-ios/WordPress/Classes")

    private func store(at version: String) throws -> String {
        let store = try scratchDirectory().appendingPathComponent("WordPress.sqlite").path
        let made = try ChrysalisRunner.run([
            "fixture", folder.appendingPathComponent("WordPress.xcdatamodeld").path, "--version", version, "--rows",
            "3", "--out", store,
        ])
        XCTAssertEqual(made.status, 0, made.stderr)
        return store
    }

    func testAPlanWithPoliciesThisBuildLacksIsBrowsedAndOnlyMigrateIsRefused() throws {
        try EndToEnd.require(TmuxSession.available, "tmux is not installed")
        let store = try store(at: "WordPress 22")
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let tmux = try TmuxSession(
            """
            \(ChrysalisRunner.binary.path) console \(TmuxSession.quote(store)) --model \
            \(TmuxSession.quote(folder.appendingPathComponent("WordPress.xcdatamodeld").path)) --mappings \
            \(TmuxSession.quote(folder.appendingPathComponent("Utility/Migrations/WordPress-22-23.xcmappingmodel").path)) \
            --to 'WordPress 23'
            """, width: 80, height: 24)
        try tmux.wait(for: "Cannot migrate: browse only")
        try tmux.send("m")
        // `m` shows why, on the Plan screen's first line, and migrates nothing.
        let plan = try tmux.wait(for: "Cannot migrate: custom migration policies are not registered")
        XCTAssertTrue(plan.contains("cannot run: WordPress-22-23: AccountToAccount names"), plan)
        try tmux.send("1")
        try tmux.wait(for: "WordPress 22")
        try tmux.send("q")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)), before, "nothing was changed")
    }

    func testAStoreNoPlanReachesStillOpensOnItsVersions() throws {
        try EndToEnd.require(TmuxSession.available, "tmux is not installed")
        // WordPress 19 → 21 needs a mapping model (Comment.post's destination changes): no plan.
        let store = try store(at: "WordPress 19")
        let tmux = try TmuxSession(
            """
            \(ChrysalisRunner.binary.path) console \(TmuxSession.quote(store)) --model \
            \(TmuxSession.quote(folder.appendingPathComponent("WordPress.xcdatamodeld").path)) --to 'WordPress 21' \
            --strategy automatic
            """, width: 120, height: 40)
        let screen = try tmux.wait(for: "Cannot migrate: browse only")
        XCTAssertTrue(screen.contains("WordPress 19"), screen)
        try tmux.send("4")
        try tmux.wait(for: "Cannot migrate: ")
        try tmux.send("q")
    }
}
