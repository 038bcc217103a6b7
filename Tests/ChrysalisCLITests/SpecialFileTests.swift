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
        for arguments in [["inspect", fifo], ["plan", fifo, "--model", bookStore], ["migrate", fifo, "--model", bookStore]] {
            let started = Date()
            let result = try ChrysalisRunner.run(arguments)
            XCTAssertNotEqual(result.status, 0, "\(arguments[0]): \(result.stdout)")
            XCTAssertTrue(result.stderr.contains("is a named pipe (FIFO), not a store file"), "\(arguments[0]): \(result.stderr)")
            XCTAssertLessThan(Date().timeIntervalSince(started), 20, "\(arguments[0]) answered before the watchdog's writer came")
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
}
