import Crypto
import Foundation
import TestSupport
import XCTest

/// Two processes on one store: a second migration or console is refused naming the first; an
/// app (here the sqlite3 shell) holding SQLite's write lock is waited on, then refused by pid,
/// and the store is never touched until it lets go.
final class ConcurrencyTests: XCTestCase {
    private let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Sources/Demo/Resources")
    private var bundle: String { resources.appendingPathComponent("BookStore.xcdatamodeld").path }
    private var mapping: String { resources.appendingPathComponent("Mappings/BookStore3To4.mapping.yaml").path }

    private func store(version: String, rows: Int) throws -> String {
        let directory = try Fixtures.makeTemporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("Book Store ✓.sqlite").path
        let made = try ChrysalisRunner.run([
            "fixture", bundle, "--version", version, "--rows", String(rows), "--out", path,
        ])
        XCTAssertEqual(made.status, 0, made.stderr)
        return path
    }

    private func digest(_ path: String) throws -> String {
        SHA256.hash(data: try Data(contentsOf: URL(fileURLWithPath: path))).map { String(format: "%02x", $0) }.joined()
    }

    func testSecondMigrateAndConsoleAreRefusedNamingTheConsoleThatMigrates() throws {
        try EndToEnd.require(TmuxSession.available, "tmux is not installed")
        let path = try store(version: "BookStore 3", rows: 50)
        let command =
            "\(ChrysalisRunner.demos.path) console \(TmuxSession.quote(path)) --model \(TmuxSession.quote(bundle)) --mappings \(TmuxSession.quote(mapping)) --to 'BookStore 4' --step"
        let tmux = try TmuxSession(command)
        // Paused in step mode, the console holds the store for as long as we like.
        try tmux.wait(for: "Paused after CategoryToCategory")
        let migrate = try ChrysalisRunner.demos([
            "migrate", path, "--model", bundle, "--mappings", mapping, "--to", "BookStore 4",
        ])
        XCTAssertEqual(migrate.status, 1)
        XCTAssertTrue(
            migrate.stderr.hasPrefix("error: \(path) is being migrated by another process: pid "), migrate.stderr)
        XCTAssertTrue(migrate.stderr.contains("(chrysalis-demos console \(path) --model"), migrate.stderr)
        let console = try ChrysalisRunner.demos(["console", path, "--model", bundle, "--mappings", mapping])
        XCTAssertEqual(console.status, 1)
        XCTAssertTrue(console.stderr.contains("is being migrated by another process: pid "), console.stderr)
        XCTAssertTrue(console.stderr.contains("Fix: wait for it to finish, or stop that process"), console.stderr)
        // The first migration is unharmed by the refusals and finishes.
        try tmux.send("c")
        try tmux.wait(for: "Migrated BookStore 3 → BookStore 4")
        try tmux.send("q")
        try tmux.wait(for: "EXIT:0")
    }

    func testAnAppHoldingTheStoreIsRefusedByPidAndTheSameCommandRunsOnceItQuits() throws {
        let mapped = try store(version: "BookStore 3", rows: 20)
        let inPlace = try store(version: "BookStore", rows: 20)
        let cases: [(String, [String])] = [
            (mapped, ["migrate", mapped, "--model", bundle, "--mappings", mapping, "--to", "BookStore 4"]),
            (inPlace, ["migrate", inPlace, "--model", bundle, "--to", "BookStore 2"]),
        ]
        for (path, arguments) in cases {
            let app = try SQLiteShell(path)
            try app.run("BEGIN IMMEDIATE; UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX;")
            let before = try digest(path)
            let refused = try ChrysalisRunner.demos(arguments)
            XCTAssertEqual(refused.status, 1, refused.stdout)
            // An app that has the store open is named at once (OpenHandles), before any wait
            // for its write lock: it would go on writing to the store's old file after a swap.
            XCTAssertTrue(
                refused.stderr.contains("\(path) is open in another process: pid \(app.pid) (sqlite3 "), refused.stderr)
            XCTAssertEqual(try digest(path), before, "untouched while the app holds it")
            XCTAssertEqual(
                try FileManager.default.contentsOfDirectory(
                    atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path
                ).filter {
                    $0.contains("chrysalis")
                }, [])
            // Once the app lets go, the same command migrates.
            try app.finish("COMMIT;")
            let migrated = try ChrysalisRunner.demos(arguments)
            XCTAssertEqual(migrated.status, 0, migrated.stderr)
        }
    }
}

/// The sqlite3 shell as another app with the store open: statements go in on its standard
/// input and each call waits until the shell has run them.
private final class SQLiteShell {
    private let process = Process()
    private let input = Pipe(), output = Pipe()
    var pid: Int32 { process.processIdentifier }

    init(_ path: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
    }

    /// Runs `sql`, then waits for the shell's answer to a marker query.
    func run(_ sql: String) throws {
        input.fileHandleForWriting.write(Data("\(sql)\nSELECT 'ran-' || 'marker';\n".utf8))
        var seen = Data()
        let deadline = Date().addingTimeInterval(10)
        while !String(decoding: seen, as: UTF8.self).contains("ran-marker"), Date() < deadline {
            seen.append(output.fileHandleForReading.availableData)
        }
        guard String(decoding: seen, as: UTF8.self).contains("ran-marker") else { throw CocoaError(.fileReadUnknown) }
        XCTAssertFalse(String(decoding: seen, as: UTF8.self).contains("Error"), String(decoding: seen, as: UTF8.self))
    }

    /// Runs `sql` and ends the shell.
    func finish(_ sql: String) throws {
        try run(sql)
        input.fileHandleForWriting.closeFile()
        process.waitUntilExit()
    }

    deinit { if process.isRunning { process.terminate() } }
}
