import Foundation
import TestSupport
import XCTest

/// A private tmux server running one command in a window of a given size, driven like a user
/// would: keys in, screen text out. Started with a clean signal mask, since a test runner's
/// threads block signals that the console must receive (tui-anchors §4.3).
final class TmuxSession {
    private let directory: URL
    private let socket: String
    static var available: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") }

    /// Runs `command`, then prints `EXIT:status` at the start of a line of its own (a killed
    /// `ssh -tt` leaves the terminal raw, where a newline does not return the carriage).
    init(_ command: String, width: Int = 120, height: Int = 40) throws {
        directory = try Fixtures.makeTemporaryDirectory()
        socket = directory.appendingPathComponent("sock").path
        let wrapped =
            "cd \(Self.quote(FileManager.default.currentDirectoryPath)) && LANG=C.UTF-8 SWIFT_BACKTRACE=interactive=no \(command); printf '\\r\\nEXIT:%s\\n' $?; sleep 600"
        try tmux(["new-session", "-d", "-x", String(width), "-y", String(height), "-s", "t", wrapped])
    }

    deinit {
        _ = try? tmux(["kill-server"])
        try? FileManager.default.removeItem(at: directory)
    }

    static func quote(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// The pane's text, history included.
    func capture() throws -> String {
        try tmux(["capture-pane", "-p", "-t", "t", "-S", "-"])
    }

    func send(_ keys: String...) throws { try tmux(["send-keys", "-t", "t"] + keys) }

    /// Sends a mouse report as a terminal does (X10 encoding, cells counted from 0): `button` 0
    /// is a press of the first button, 3 its release, 64 and 65 the wheel up and down.
    func mouse(button: Int, x: Int, y: Int) throws {
        let report =
            "\u{1B}[M" + String(UnicodeScalar(UInt8(32 + button))) + String(UnicodeScalar(UInt8(33 + x)))
            + String(UnicodeScalar(UInt8(33 + y)))
        try tmux(["send-keys", "-t", "t", "-l", report])
    }

    func resize(width: Int, height: Int) throws {
        try tmux(["resize-window", "-t", "t", "-x", String(width), "-y", String(height)])
    }

    /// Closes the session, as a dropped SSH connection does: the pane's processes get SIGHUP.
    func hangUp() throws { try tmux(["kill-session", "-t", "t"]) }

    /// What the program put on the clipboard through OSC 52, as tmux keeps it (its newest paste
    /// buffer, with `set-clipboard on`); nil when nothing is there.
    func clipboard() throws -> String? { try? tmux(["show-buffer"]) }

    /// Lets the program set the clipboard: tmux takes OSC 52 only with `set-clipboard on`.
    func allowClipboard() throws { _ = try tmux(["set-option", "-s", "set-clipboard", "on"]) }

    /// Waits until the screen shows every one of `texts` (or `timeout` passes); returns the
    /// screen. Several texts of one frame wait out a capture taken while ncurses is mid-redraw.
    @discardableResult
    func wait(for texts: String..., timeout: TimeInterval = 60, file: StaticString = #filePath, line: UInt = #line)
        throws -> String
    {
        let deadline = Date().addingTimeInterval(timeout)
        var screen = ""
        while Date() < deadline {
            screen = try capture()
            if texts.allSatisfy(screen.contains) { return screen }
            Thread.sleep(forTimeInterval: 0.1)
        }
        XCTFail(
            "the screen never showed \(texts.map { "\"\($0)\"" }.joined(separator: " and ")):\n\(screen)", file: file,
            line: line)
        return screen
    }

    @discardableResult
    private func tmux(_ arguments: [String]) throws -> String {
        let output = directory.appendingPathComponent("out-\(UUID().uuidString)")
        let status = try Self.spawn(["/usr/bin/tmux", "-S", socket] + arguments, output: output.path)
        defer { try? FileManager.default.removeItem(at: output) }
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        if status != 0 && arguments.first != "kill-server" && arguments.first != "kill-session" {
            throw NSError(
                domain: "tmux", code: Int(status),
                userInfo: [NSLocalizedDescriptionKey: "tmux \(arguments.joined(separator: " ")) failed: \(text)"])
        }
        return text
    }

    /// Runs `argv` to its end (see ``CleanSpawn``); its exit status.
    private static func spawn(_ argv: [String], output: String) throws -> Int32 {
        let pid = try CleanSpawn.start(argv, output: output)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return (status >> 8) & 0xFF
    }
}
