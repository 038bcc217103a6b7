import Foundation
import TestSupport
import XCTest

/// The console's first use, for real: `chrysalis console` run over SSH (a loopback sshd from
/// Debian's openssh-server, an `ssh -tt` client in a tmux window), drawn and driven with keys, then
/// the connection dropped mid-migration by killing the client (DESIGN §6 "Over SSH").
final class SSHConsoleTests: XCTestCase {
    private let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Sources/Demo/Resources")
    private var bundle: String { resources.appendingPathComponent("BookStore.xcdatamodeld").path }
    /// The demos' policies are registered in `chrysalis-demos` (BookStore3To4 names a custom one).
    private var binary: String { ChrysalisRunner.demos.path }
    private var server: LoopbackSSH!

    /// Rows per root entity of the hang-up store: a debug build migrates it in several seconds, long
    /// enough that the connection surely drops while the migration runs.
    private static let rows = 100_000
    /// One store made for the whole class; each test migrates its own copy.
    nonisolated(unsafe) private static var fixture: URL?

    override func setUpWithError() throws {
        try EndToEnd.require(TmuxSession.available, "tmux is not installed")
        server = try LoopbackSSH.start()
        addTeardownBlock { [self] in
            // A console left running by a failed test is ended, so it cannot outlive its files.
            for pid in LoopbackSSH.processes(where: { argv in
                argv.first == binary
                    && argv.contains { argument in directories.contains { argument.hasPrefix($0.path) } }
            }) {
                kill(pid, SIGKILL)
            }
            server?.stop()
            server = nil
        }
    }

    override class func tearDown() {
        if let fixture { try? FileManager.default.removeItem(at: fixture.deletingLastPathComponent()) }
        fixture = nil
        super.tearDown()
    }

    private var directories: [URL] = []

    private func directory() throws -> URL {
        let directory = try Fixtures.makeTemporaryDirectory()
        directories.append(directory)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return directory
    }

    /// A copy of the class's BookStore 3 store in a directory of its own.
    private func bookStore3() throws -> String {
        if Self.fixture == nil {
            let made = try Fixtures.makeTemporaryDirectory().appendingPathComponent("BookStore.sqlite")
            let result = try ChrysalisRunner.run([
                "fixture", bundle, "--version", "BookStore 3", "--rows", String(Self.rows), "--out", made.path,
            ])
            XCTAssertEqual(result.status, 0, result.stderr)
            Self.fixture = made
        }
        let store = try directory().appendingPathComponent("BookStore.sqlite")
        try FileManager.default.copyItem(at: try XCTUnwrap(Self.fixture), to: store)
        return store.path
    }

    /// Shell text for the remote side: the console on `store`, with its environment on the
    /// command line (sshd passes none of the client's but TERM, and this test sets TERM itself).
    private func console(_ store: String, term: String, utf8: Bool) -> String {
        let mappings = resources.appendingPathComponent("Mappings")
        let environment = "TERM=\(term) SWIFT_BACKTRACE=interactive=no" + (utf8 ? " LANG=C.UTF-8" : " LANG=C")
        return
            "cd \(TmuxSession.quote(URL(fileURLWithPath: store).deletingLastPathComponent().path)) && \(environment) "
            + "\(TmuxSession.quote(binary)) console \(TmuxSession.quote(store)) --model \(TmuxSession.quote(bundle)) "
            + ["BookStore3To4", "BookStore4To5"].map {
                "--mappings \(TmuxSession.quote(mappings.appendingPathComponent("\($0).mapping.yaml").path))"
            }
            .joined(separator: " ")
    }

    /// The console processes (on the far side of the SSH connection) working on `store`.
    private func consoles(on store: String) -> [pid_t] {
        LoopbackSSH.processes { $0.first == self.binary && $0.contains("console") && $0.contains(store) }
    }

    private func percent(_ screen: String) -> Int? {
        guard let range = screen.range(of: #"\d+%"#, options: .regularExpression) else { return nil }
        return Int(screen[range].dropLast())
    }

    /// Polls `condition` on the screen until it holds or `timeout` passes.
    @discardableResult
    private func wait(
        _ tmux: TmuxSession, timeout: TimeInterval = 60, _ what: String, until condition: (String) -> Bool,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var screen = ""
        while Date() < deadline {
            screen = try tmux.capture()
            if condition(screen) { return screen }
            Thread.sleep(forTimeInterval: 0.1)
        }
        XCTFail("the screen never showed \(what):\n\(screen)", file: file, line: line)
        return screen
    }

    /// The console draws over SSH at 80×24 and its keys work: the versions screen, Tab to the
    /// model screen, `?` opens and closes help.
    private func checkDrawsAndKeys(_ tmux: TmuxSession, utf8: Bool) throws {
        let versions = try tmux.wait(for: "Versions of BookStore", "BookStore 3  (the store is here)", "q quit")
        XCTAssertFalse(
            versions.split(separator: "\n").contains { $0.count > 80 }, "laid out for 80 columns:\n\(versions)")
        if utf8 {
            XCTAssertTrue(versions.contains("● BookStore 3"), "UTF-8 glyphs with LANG=C.UTF-8:\n\(versions)")
        } else {
            XCTAssertFalse(
                versions.contains("●") || versions.contains("─"), "plain ASCII without a UTF-8 locale:\n\(versions)")
        }
        try tmux.send("Tab")
        try tmux.wait(for: "Model BookStore 3", "Publication")
        try tmux.send("?")
        try tmux.wait(for: " Keys ", "next / previous screen", "close help")
        try tmux.send("?")
        try wait(
            tmux, "help closed", until: { !$0.contains("next / previous screen") && $0.contains("Model BookStore 3") })
    }

    // MARK: - The tests

    func testQuitOverSSHWithXtermRestoresTheTerminal() throws {
        let store = try bookStore3()
        // A shell stays between sshd and the console here, so it can compare the terminal's modes
        // before and after (raw mode, no echo: ncurses' settings must not outlive the console).
        let remote =
            "before=$(stty -g); \(console(store, term: "xterm-256color", utf8: true)); status=$?; "
            + "if [ \"$(stty -g)\" = \"$before\" ]; then echo TTY-RESTORED; else echo TTY-CHANGED; stty -a; fi; exit $status"
        let tmux = try TmuxSession(server.command(remote), width: 80, height: 24)
        try checkDrawsAndKeys(tmux, utf8: true)
        try tmux.send("q")
        let end = try tmux.wait(for: "EXIT:0", timeout: 60)
        XCTAssertTrue(end.contains("TTY-RESTORED"), "the terminal's modes are restored after quitting:\n\(end)")
        XCTAssertFalse(end.contains("Versions of BookStore"), "the alternate screen was left:\n\(end)")
        try waitUntilGone(store)
        XCTAssertTrue(
            FileManager.default.contentsEqual(atPath: store, andPath: try XCTUnwrap(Self.fixture).path),
            "quitting changes nothing")
        XCTAssertFalse(FileManager.default.fileExists(atPath: store + ".chrysalis-report.txt"), "no hang-up, no report")
        assertNoWorkFiles(beside: store)
    }

    /// xterm-256color, UTF-8, the console the session leader of the remote terminal (bash runs the
    /// last command of `cd … && console` in its own process): the hang-up reaches it as SIGHUP.
    func testHangUpOverSSHWithXterm256Color() throws {
        try hangUpMidMigration(term: "xterm-256color", utf8: true, shellBetween: false)
    }

    /// vt100, ASCII, a shell between sshd and the console (the hang-up reaches the shell; the
    /// console sees its terminal gone).
    func testHangUpOverSSHWithVT100() throws {
        try hangUpMidMigration(term: "vt100", utf8: false, shellBetween: true)
    }

    private func hangUpMidMigration(
        term: String, utf8: Bool, shellBetween: Bool, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let store = try bookStore3()
        let original = try directory().appendingPathComponent("original.sqlite")
        try FileManager.default.copyItem(atPath: store, toPath: original.path)
        let remote =
            shellBetween
            ? "\(console(store, term: term, utf8: utf8)); echo console-exit:$?" : console(store, term: term, utf8: utf8)
        let tmux = try TmuxSession(server.command(remote), width: 80, height: 24)
        try checkDrawsAndKeys(tmux, utf8: utf8)

        try tmux.send("m")
        let running = try wait(
            tmux, "the migration's progress",
            until: { screen in
                // Past 0%: rows are being written when the connection drops.
                screen.contains("Step 1/2") && (self.percent(screen) ?? 0) >= 1
                    && screen.contains("Migration in progress")
            })
        let clients = server.clients()
        XCTAssertEqual(clients.count, 1, "one ssh client: \(clients)")
        XCTAssertEqual(consoles(on: store).count, 1, "the console runs on the far side")
        XCTAssertLessThan(
            percent(running) ?? 100, 100, "the migration still runs when the connection drops:\n\(running)")
        // The connection drops: the client dies at once, sshd closes the remote terminal.
        for pid in clients { kill(pid, SIGKILL) }
        let dropped = Date()
        try tmux.wait(for: "EXIT:137")

        try waitUntilGone(store)
        let exited = Date().timeIntervalSince(dropped)
        let report = store + ".chrysalis-report.txt"
        XCTAssertTrue(FileManager.default.fileExists(atPath: report), "a report beside the store after the hang-up")
        let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
        print(
            "SSHConsoleTests (\(term)): the connection dropped at \(percent(running) ?? 0)%; the remote console exited "
                + "\(String(format: "%.1f", exited)) s later; \(text.split(separator: "\n").first { $0.hasPrefix("result:") } ?? "no result in the report")"
        )
        XCTAssertTrue(text.contains("store: \(store)"), text)
        XCTAssertTrue(text.contains("the terminal closed (SIGHUP) while the migration ran"), text)

        // The store is the original byte for byte or the target, never in between, and the report says which.
        let unchanged = FileManager.default.contentsEqual(atPath: store, andPath: original.path)
        let inspected = try ChrysalisRunner.run(["inspect", store, "--model", bundle, "--json"])
        XCTAssertEqual(inspected.status, 0, inspected.stderr)
        let json = try JSONSerialization.jsonObject(with: Data(inspected.stdout.utf8)) as? [String: Any]
        let matched = json?["matchedVersion"] as? String
        if unchanged {
            XCTAssertTrue(
                text.contains("result: not migrated; the store is as it was"),
                "the store is the original; the report must say so:\n\(text)")
        } else {
            XCTAssertEqual(matched, "BookStore 5", "a changed store is the target:\n\(inspected.stdout)")
            XCTAssertTrue(
                text.contains("result: migrated BookStore 3 → BookStore 5"),
                "the store is the target; the report must say so:\n\(text)")
            XCTAssertTrue(text.contains("backup: "), text)
            let backup = URL(fileURLWithPath: store).deletingLastPathComponent().appendingPathComponent(
                "BookStore~.sqlite"
            ).path
            XCTAssertTrue(
                FileManager.default.contentsEqual(atPath: backup, andPath: original.path),
                "the original is kept as BookStore~.sqlite")
        }
        assertNoWorkFiles(beside: store)
    }

    /// Waits (up to a minute) for the remote console on `store` to exit.
    private func waitUntilGone(_ store: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let deadline = Date().addingTimeInterval(60)
        while !consoles(on: store).isEmpty, Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        let left = consoles(on: store)
        XCTAssertEqual(
            left, [],
            "the remote console still runs a minute after the connection dropped\nsshd log:\n\(server.logText)",
            file: file, line: line)
        if !left.isEmpty {
            throw NSError(
                domain: "SSHConsoleTests", code: 1,
                userInfo: [NSLocalizedDescriptionKey: "the console on \(store) did not exit"])
        }
    }

    /// No lock, journal or work files beside the store once its console has exited.
    private func assertNoWorkFiles(beside store: String, file: StaticString = #filePath, line: UInt = #line) {
        let url = URL(fileURLWithPath: store)
        let name = url.lastPathComponent
        let left = ((try? FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)) ?? [])
            .filter { $0.hasPrefix(".\(name).chrysalis-") || $0 == "\(name).chrysalis-lock" }
        XCTAssertEqual(left, [], "files left beside the store", file: file, line: line)
    }
}
