import Foundation
import TestSupport
import XCTest

/// The console on a real app's store in a real terminal (issue 31): a copy of Wire's `store2-3`
/// against Wire's 90 versions at 80×24, driven with keys in tmux.
final class WireConsoleTests: FixtureTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try EndToEnd.require(TmuxSession.available, "tmux is not installed")
    }

    private func wire() throws -> (store: String, bundle: String) {
        let store = try XCTUnwrap(
            Fixtures.stores.first { $0.lastPathComponent.hasPrefix("store2-3.") }, "Wire's store2-3 in the fixtures")
        let bundle = try XCTUnwrap(Fixtures.files(where: { $0.lastPathComponent == "zmessaging.xcdatamodeld" }).first)
        return (try Fixtures.copyStore(store, into: try scratchDirectory()).path, bundle.path)
    }

    func testScrollToTheCurrentVersionReachTheLastFindingAndRunThePlan() throws {
        let (store, bundle) = try wire()
        let tmux = try TmuxSession(
            "\(ChrysalisRunner.binary.path) console \(TmuxSession.quote(store)) --model \(TmuxSession.quote(bundle))",
            width: 80, height: 24)
        let opened = try tmux.wait(for: "Versions of zmessaging", "(the store is here)")
        XCTAssertTrue(opened.contains("● zmessaging2.3"), "opens at the store's version, in view:\n\(opened)")
        try tmux.send("End")
        let end = try tmux.wait(for: "90/90")
        XCTAssertTrue(
            end.contains("★  zmessaging2.101.0") || end.contains("★ zmessaging2.101.0")
                || end.contains("zmessaging2.101.0  (the current version)"),
            "End reaches the current version:\n\(end)")
        try tmux.send("Tab", "Tab", "Tab")
        try tmux.wait(for: "Plan: zmessaging2.3 → zmessaging2.101.0")
        try tmux.send("G")
        let last = try tmux.wait(for: "267/267")
        XCTAssertTrue(last.contains("rewrites whole tables"), "the last finding is reachable:\n\(last)")
        try tmux.send("m")
        let done = try tmux.wait(for: "Migration finished", timeout: 120)
        let rows = done.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertTrue(rows.count >= 24 && rows[22].hasPrefix("─ Migration finished"), "the footer is whole:\n\(done)")
        XCTAssertTrue(rows[23].contains("q quit"), "the key line is whole:\n\(done)")
        try tmux.send("q")
        let exit = try tmux.wait(for: "EXIT:0")
        // The terminal wraps long lines at 80 columns; the line is read whole.
        let scrollback = exit.replacingOccurrences(of: "\n", with: "")
        XCTAssertTrue(
            scrollback.contains("Migrated \(store) from zmessaging2.3 to zmessaging2.101.0"),
            "a summary stays in the scrollback:\n\(exit)")
        // What the plan dropped is said there too, with its rows (the store holds no invitation).
        XCTAssertTrue(
            scrollback.contains("Dropped, as planned: 0 rows of 1 entity (PersonalInvitation) and "),
            "the loss stays in the scrollback:\n\(exit)")
    }

    /// Every numbered part of the console on a real app's store in a real terminal: the keys go
    /// to the pane beside the list and scroll it, a find is kept for `n`, the Plan filters down to
    /// its losses, the mouse opens a tab and scrolls, and help fits over the body.
    func testPanesFindFilterMouseAndHelpInARealTerminal() throws {
        let (store, bundle) = try wire()
        let tmux = try TmuxSession(
            "\(ChrysalisRunner.binary.path) console \(TmuxSession.quote(store)) --model \(TmuxSession.quote(bundle))",
            width: 80, height: 24)
        try tmux.wait(for: "Versions of zmessaging")
        // `/` finds a version by what it changed; `n` the next one.
        try tmux.send("/")
        try tmux.send("-l", "new entity")
        try tmux.send("Enter", "l", "G")
        // The version found lists what it changed at the end of its pane.
        let first = try tmux.wait(for: "Esc back", "  new entity ")
        XCTAssertFalse(first.contains("No row holds"), first)
        let selected = { (screen: String) in
            screen.split(separator: "\n").first { $0.contains("▶") }.map(String.init) ?? ""
        }
        try tmux.send("Escape", "n", "l", "G")
        var second = first
        for _ in 0..<100 where selected(second) == selected(first) || !second.contains("Esc back") {
            Thread.sleep(forTimeInterval: 0.1)
            second = try tmux.capture()
        }
        XCTAssertNotEqual(selected(first), selected(second), "n found another version:\n\(second)")
        XCTAssertTrue(second.contains("  new entity "), second)
        try tmux.send("Escape", "4", "f")
        try tmux.send("-l", "dropped")
        try tmux.send("Enter")
        let filtered = try tmux.wait(for: "Only lines holding \"dropped\"")
        let body = filtered.split(separator: "\n").dropFirst(5).prefix(15).filter { !$0.contains("[lightweight]") }
        XCTAssertTrue(!body.isEmpty && body.allSatisfy { $0.contains("data dropped") }, filtered)
        // The mouse: a click on the Mappings tab.
        let tabs = try XCTUnwrap(filtered.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().first)
        let column = tabs.distance(from: tabs.startIndex, to: try XCTUnwrap(tabs.range(of: "Mappings")).lowerBound)
        try tmux.mouse(button: 0, x: column, y: 1)
        try tmux.mouse(button: 3, x: column, y: 1)
        try tmux.wait(for: "no entity mappings to run")
        try tmux.send("?")
        // The whole frame, not its first rows: ncurses paints top down, and a capture can land mid-paint.
        let help = try tmux.wait(for: "┌─ Keys", "close help")
        let rows = help.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertTrue(
            rows.count >= 24 && rows[23].contains("close help") && rows[22].hasPrefix("─ Help"),
            "help leaves the status and key lines whole:\n\(help)")
        try tmux.send("Escape", "q")
        try tmux.wait(for: "EXIT:0")
    }

    /// A terminal whose terminfo entry the system running the test lacks (the first of kitty's,
    /// alacritty's, wezterm's and foot's it lacks) is drawn as xterm-256color, and the console
    /// says so when it ends.
    func testAMissingTerminfoEntryFallsBackToXterm256colorAndSaysSo() throws {
        let missing = try XCTUnwrap(
            ["xterm-kitty", "alacritty", "wezterm", "foot"].first { !Self.hasTerminfo($0) },
            "every modern terminal's entry is installed here")
        let (store, bundle) = try wire()
        let tmux = try TmuxSession(
            "TERM=\(missing) \(ChrysalisRunner.binary.path) console \(TmuxSession.quote(store)) --model \(TmuxSession.quote(bundle))",
            width: 80, height: 24)
        try tmux.wait(for: "Versions of zmessaging")
        try tmux.send("q")
        let exit = try tmux.wait(for: "EXIT:0")
        XCTAssertTrue(
            exit.replacingOccurrences(of: "\n", with: "").contains(
                "note: TERM=\(missing) has no terminfo entry on this machine; the console drew as xterm-256color"), exit
        )
    }

    private static func hasTerminfo(_ term: String) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["infocmp", term]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
