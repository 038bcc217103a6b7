import Foundation
import TestSupport
import XCTest

/// The console on a second real app in a real terminal: WooCommerce's store at Model 9 through
/// its own mapping model to Model 10 in step mode at 80×24, as a presenter steps through it.
final class WooCommerceConsoleTests: FixtureTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try EndToEnd.require(TmuxSession.available, "tmux is not installed")
    }

    /// The mapping order is longer than the screen: the running mapping stays in view with its
    /// position and stage as Enter steps through it; the expression `statusKey = $source.status`
    /// is reached in the Mappings pane; the run ends migrated.
    func testStepModeKeepsTheRunningMappingInViewAndEveryExpressionIsReachable() throws {
        let mapping = try XCTUnwrap(
            Fixtures.files(where: { $0.lastPathComponent == "WooCommerceModelV9toV10.xcmappingmodel" }).first)
        let bundle = mapping.deletingLastPathComponent().appendingPathComponent("WooCommerce.xcdatamodeld").path
        let store = try scratchDirectory().appendingPathComponent("WooCommerce.sqlite").path
        let made = try ChrysalisRunner.run(["fixture", bundle, "--version", "Model 9", "--rows", "30", "--out", store])
        XCTAssertEqual(made.status, 0, made.stderr)
        let tmux = try TmuxSession(
            "\(ChrysalisRunner.binary.path) console \(TmuxSession.quote(store)) --model \(TmuxSession.quote(bundle)) "
                + "--mappings \(TmuxSession.quote(mapping.path)) --to 'Model 10'", width: 80, height: 24)
        try tmux.wait(for: "Versions of WooCommerce")
        // Every expression of the mapping model, reached in the pane.
        try tmux.send("3", "/")
        try tmux.send("-l", "statusKey")
        try tmux.send("Enter")
        try tmux.send("l", "/")
        try tmux.send("-l", "statusKey")
        try tmux.send("Enter")
        try tmux.wait(for: "statusKey = $source.status")
        try tmux.send("Escape", "s")
        let first = try tmux.wait(for: "Paused after", "stage 1/3")
        let heading = try XCTUnwrap(first.split(separator: "\n").first { $0.contains("Mapping order") }, first)
        let count = try XCTUnwrap(
            heading.range(of: #"\d+/\d+"#, options: .regularExpression).map { String(heading[$0]) }, first)
        XCTAssertEqual(count.split(separator: "/").first, "2", "paused after the first, the second is next:\n\(first)")
        let total = try XCTUnwrap(Int(count.split(separator: "/")[1]))
        XCTAssertGreaterThan(total, 12, "the premise: more mappings than the area holds:\n\(first)")
        // Step on until the twelfth mapping runs: at each step the running mapping is on the
        // screen, lit, with its position (waited for whole: a capture may catch a redraw half done).
        for next in 3...12 {
            try tmux.send("Enter")
            try tmux.wait(for: "Paused after", " \(next)/\(total)", "▶ \(next).")
        }
        try tmux.send("c")
        try tmux.wait(for: "Migration finished", timeout: 120)
        try tmux.send("q")
        let end = try tmux.wait(for: "EXIT:0")
        XCTAssertTrue(end.replacingOccurrences(of: "\n", with: "").contains("to Model 10"), end)
    }

    /// An 84-step plan takes seconds to work out: the console draws its first frame before it,
    /// saying what it is doing, and keys typed then are neither echoed nor taken for commands.
    func testTheFirstFrameComesBeforeTheLongPlan() throws {
        let bundle = try XCTUnwrap(
            Fixtures.files(where: { $0.lastPathComponent == "WooCommerce.xcdatamodeld" }).first
        ).path
        let store = try scratchDirectory().appendingPathComponent("WooCommerce.sqlite").path
        let made = try ChrysalisRunner.run(["fixture", bundle, "--version", "Model 33", "--rows", "5", "--out", store])
        XCTAssertEqual(made.status, 0, made.stderr)
        let tmux = try TmuxSession(
            "\(ChrysalisRunner.binary.path) console \(TmuxSession.quote(store)) --model \(TmuxSession.quote(bundle)) "
                + "--stepwise", width: 80, height: 24)
        let first = try tmux.wait(for: "Reading the model bundle and working out the plan", timeout: 5)
        XCTAssertTrue(first.contains("Chrysalis  WooCommerce.sqlite"), first)
        try tmux.send("-l", "mzz")
        let opened = try tmux.wait(for: "Versions of WooCommerce", timeout: 120)
        XCTAssertFalse(opened.contains("mzz"), "keys typed before the plan are not echoed:\n\(opened)")
        XCTAssertFalse(opened.contains("Migrating"), "nor taken for m:\n\(opened)")
        try tmux.send("q")
        try tmux.wait(for: "EXIT:0")
    }
}
