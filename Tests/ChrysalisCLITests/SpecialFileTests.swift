import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// Paths that are not store files, and sizes past what any store holds, refused at once
/// (issue 29 §6): a FIFO named like a store hung `inspect` and `migrate`; a huge `--rows`
/// crashed `fixture` on its arithmetic and left a partial store.
final class SpecialFileTests: XCTestCase {
    private let bookStore = ChrysalisRunner.demoResources.appendingPathComponent("BookStore.xcdatamodeld").path

    func testAFIFONamedLikeAStoreIsRefusedWithoutWaiting() throws {
        let directory = try Fixtures.makeTemporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("Books.sqlite").path
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        // Should a command wait on the FIFO after all, a writer arrives after 20 s and ends the
        // wait, so the test fails instead of hanging the suite.
        DispatchQueue.global().asyncAfter(deadline: .now() + 20) {
            let descriptor = open(fifo, O_WRONLY | O_NONBLOCK)
            if descriptor >= 0 { close(descriptor) }
        }
        for arguments in [
            ["inspect", fifo], ["plan", fifo, "--model", bookStore], ["migrate", fifo, "--model", bookStore],
        ] {
            let started = Date()
            let result = try ChrysalisRunner.run(arguments)
            XCTAssertNotEqual(result.status, 0, "\(arguments[0]): \(result.stdout)")
            XCTAssertTrue(
                result.stderr.contains("is a named pipe (FIFO), not a store file"), "\(arguments[0]): \(result.stderr)")
            XCTAssertLessThan(
                Date().timeIntervalSince(started), 20, "\(arguments[0]) answered before the watchdog's writer came")
        }
    }

    func testRowsBeyondAnyStoreAreRefusedBeforeAFileIsMade() throws {
        let directory = try Fixtures.makeTemporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("Huge.sqlite").path
        let result = try ChrysalisRunner.run(["fixture", bookStore, "--rows", "9223372036854775807", "--out", out])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("--rows must be between 0 and 1000000000"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out), "no partial store")
    }

    /// `inspect` and `plan` leave a WAL store's files as they found them (issue 29 §6): SQLite
    /// creates a 32 kB `-shm` for a reader where there was none, and rebuilds a damaged one.
    func testReadOnlyCommandsLeaveTheSharedMemoryFileAsTheyFoundIt() throws {
        let directory = try Fixtures.makeTemporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("Books.sqlite").path
        let made = try ChrysalisRunner.run([
            "fixture", bookStore, "--version", "BookStore", "--rows", "20", "--out", store,
        ])
        XCTAssertEqual(made.status, 0, made.stderr)
        unlink(store + "-shm")
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: store + "-wal"), "the premise: a closed WAL store, no sidecars")
        for arguments in [["inspect", store], ["plan", store, "--model", bookStore]] {
            let result = try ChrysalisRunner.run(arguments)
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: store + "-shm"), "\(arguments[0]) left a -shm behind")
        }
        let garbage = Data((0..<32768).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try garbage.write(to: URL(fileURLWithPath: store + "-shm"))
        for arguments in [["inspect", store], ["plan", store, "--model", bookStore]] {
            let result = try ChrysalisRunner.run(arguments)
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(
                FileManager.default.contents(atPath: store + "-shm"), garbage, "\(arguments[0]) rewrote the -shm")
        }
    }

    /// The dry run's temporary folder, as a user's TMPDIR may be: missing (said, and not
    /// created), holding a folder a killed dry run left (removed by the next), and a dry run that
    /// fails names the store, never its hidden copy.
    func testTheDryRunsTemporaryFolderIsSaidAsItIs() throws {
        let directory = try Fixtures.makeTemporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("Books.sqlite").path
        XCTAssertEqual(
            try ChrysalisRunner.run(["fixture", bookStore, "--version", "BookStore 3", "--rows", "20", "--out", store])
                .status, 0)
        let missing = directory.appendingPathComponent("no-such-tmp").path
        let refused = try ChrysalisRunner.run(
            ["migrate", store, "--model", bookStore, "--dry-run"], environment: ["TMPDIR": missing])
        XCTAssertEqual(refused.status, 1, refused.stderr)
        XCTAssertTrue(
            refused.stderr.contains(
                "the temporary folder \(missing) (TMPDIR) does not exist; a dry run copies the store there"),
            refused.stderr)
        XCTAssertTrue(refused.stderr.contains("Fix: create it, or set TMPDIR to a folder that exists"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing), "a missing TMPDIR is not created")

        let temporary = directory.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let abandoned = temporary.appendingPathComponent("chrysalis-dry-run-999999-left-by-a-kill")
        try FileManager.default.createDirectory(at: abandoned, withIntermediateDirectories: true)
        // A step that fails: a mapping whose policy is not registered in `chrysalis`.
        let mapping = ChrysalisRunner.demoResources.appendingPathComponent("Mappings/BookStore3To4.mapping.yaml").path
        let failed = try ChrysalisRunner.run(
            ["migrate", store, "--model", bookStore, "--mappings", mapping, "--to", "BookStore 4", "--dry-run"],
            environment: ["TMPDIR": temporary.path])
        XCTAssertEqual(failed.status, 1, failed.stderr)
        XCTAssertFalse(failed.stderr.contains(temporary.path), "no hidden copy named: \(failed.stderr)")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: temporary.path), [],
            "the killed run's copy and this run's are gone")
    }

    /// Ctrl-C while `fixture` makes its rows stops it there and leaves no store (issue 29 §6).
    func testCtrlCWhileRowsAreMadeStopsAndLeavesNoStore() throws {
        let directory = try Fixtures.makeTemporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("Big.sqlite").path
        let process = Process()
        process.executableURL = Bundle.main.bundleURL.appendingPathComponent("chrysalis")
        process.arguments = ["fixture", bookStore, "--rows", "2000000", "--out", out]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Progress goes to standard error; the first line says rows are being made.
        var stderr = ""
        let deadline = Date().addingTimeInterval(60)
        while !stderr.contains("generating rows"), Date() < deadline {
            stderr += String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self)
        }
        XCTAssertTrue(stderr.contains("generating rows"), stderr)
        kill(process.processIdentifier, SIGINT)
        DispatchQueue.global().async { _ = output.fileHandleForReading.readDataToEndOfFile() }
        stderr += String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 3, stderr)
        XCTAssertTrue(stderr.contains("cancelled: no store was made at \(out)"), stderr)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: directory.path), [], "nothing left of the store")
    }
}
