import Foundation
import TestSupport
import XCTest

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `check-history --junit PATH` writes its report as the tool writes its own files: a symbolic
/// link is written through, a device or pipe is written to as it is and never replaced, `-` is
/// standard output, another user's file keeps its owner, and a path that cannot be written is
/// named with its cause and fix.
final class ReportOutputTests: XCTestCase {
    private let bundle = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/Demo/Resources/Books/Model.xcdatamodeld")

    private func checkHistory(junit: String) throws -> ChrysalisRunner.Result {
        try ChrysalisRunner.run(["check-history", bundle.path, "--rows", "2", "--junit", junit])
    }

    private func isReport(_ text: String) -> Bool {
        text.hasPrefix("<?xml") && text.contains("<testsuite") && XMLParser(data: Data(text.utf8)).parse()
    }

    func testASymbolicLinkIsWrittenThroughAndKept() throws {
        let folder = try scratchDirectory()
        let target = folder.appendingPathComponent("reports/history.xml")
        try FileManager.default.createDirectory(
            at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("old".utf8).write(to: target)
        let link = folder.appendingPathComponent("latest.xml")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: target.path)
        let result = try checkHistory(junit: link.path)
        XCTAssertFalse(result.stderr.contains("Error:"), result.stderr)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link.path), target.path)
        XCTAssertTrue(isReport(try String(contentsOf: target, encoding: .utf8)), "the link's target holds the report")
    }

    func testACharacterDeviceAndAPipeAreWrittenToNotReplaced() throws {
        let null = try checkHistory(junit: "/dev/null")
        XCTAssertFalse(null.stderr.contains("Error:"), null.stderr)
        var info = stat()
        XCTAssertEqual(lstat("/dev/null", &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFCHR, "/dev/null is still a device")
        let fifo = try scratchDirectory().appendingPathComponent("report.fifo")
        XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
        let read = Thread.readingWhole(fifo.path)
        let piped = try checkHistory(junit: fifo.path)
        XCTAssertFalse(piped.stderr.contains("Error:"), piped.stderr)
        XCTAssertTrue(isReport(read.wait()), "the reader got the report")
        XCTAssertEqual(lstat(fifo.path, &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFIFO, "still a pipe")
    }

    func testADashIsStandardOutputAndTheTextGoesToStandardError() throws {
        let result = try checkHistory(junit: "-")
        XCTAssertTrue(isReport(result.stdout), result.stdout)
        XCTAssertTrue(result.stderr.contains("versions of Model"), "the text report: \(result.stderr)")
    }

    func testPathsThatCannotTakeAReportAreNamedWithTheFix() throws {
        let folder = try scratchDirectory()
        let missing = try checkHistory(junit: folder.appendingPathComponent("nowhere/history.xml").path)
        XCTAssertNotEqual(missing.status, 0)
        XCTAssertTrue(
            missing.stderr.contains(
                "cannot write the JUnit report to \(folder.path)/nowhere/history.xml: the folder \(folder.path)/nowhere does not exist"
            ), missing.stderr)
        XCTAssertTrue(missing.stderr.contains("Fix: create the folder first"), missing.stderr)
        XCTAssertFalse(missing.stderr.contains("NSCocoaErrorDomain"), missing.stderr)
        let intoFolder = try checkHistory(junit: folder.path)
        XCTAssertNotEqual(intoFolder.status, 0)
        XCTAssertTrue(intoFolder.stderr.contains("it is a folder"), intoFolder.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [], "nothing left behind")
    }

    /// As root, a report at the path of another user's file rewrites it in place: the file keeps
    /// its owner, mode and inode, and never becomes root's.
    func testAnotherUsersFileKeepsItsOwner() throws {
        try EndToEnd.require(geteuid() == 0, "needs root, to write another user's file")
        let file = try scratchDirectory().appendingPathComponent("history.xml")
        try Data("old".utf8).write(to: file)
        XCTAssertEqual(chown(file.path, 65_534, 65_534), 0)
        XCTAssertEqual(chmod(file.path, 0o664), 0)
        var before = stat(), after = stat()
        XCTAssertEqual(stat(file.path, &before), 0)
        _ = try checkHistory(junit: file.path)
        XCTAssertEqual(stat(file.path, &after), 0)
        XCTAssertEqual(after.st_uid, 65_534)
        XCTAssertEqual(after.st_mode & 0o7777, 0o664)
        XCTAssertEqual(after.st_ino, before.st_ino, "rewritten in place")
        XCTAssertTrue(isReport(try String(contentsOf: file, encoding: .utf8)))
    }
}

extension Thread {
    /// Reads the FIFO at `path` to its end on a thread of its own.
    fileprivate static func readingWhole(_ path: String) -> FIFOReader { FIFOReader(path) }
}

/// The text a FIFO's writer sent, read on a thread of its own (opening a FIFO to read waits for a writer).
private final class FIFOReader: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var text = ""

    init(_ path: String) {
        Thread.detachNewThread { [self] in
            text =
                (FileHandle(forReadingAtPath: path)?.readDataToEndOfFile()).map {
                    String(decoding: $0, as: UTF8.self)
                } ?? ""
            done.signal()
        }
    }

    func wait() -> String {
        _ = done.wait(timeout: .now() + 60)
        return text
    }
}
