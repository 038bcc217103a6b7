import Crypto
import Foundation
import TestSupport
import XCTest

/// Under a resource limit a run works or fails at once with a message naming the limit and its
/// fix; it is never killed half way.
final class LimitsTests: XCTestCase {
    func testAFileSizeLimitBelowTheStoreIsNamedBeforeAnyWork() throws {
        let folder = try scratchDirectory()
        let bundle = ChrysalisRunner.demoResources.appendingPathComponent("BookStore.xcdatamodeld").path
        let store = folder.appendingPathComponent("BookStore.sqlite").path
        XCTAssertEqual(try ChrysalisRunner.run(["fixture", bundle, "--version", "BookStore", "--rows", "3000", "--out", store]).status, 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        XCTAssertGreaterThan(before.count, 128 * 1024, "the premise: the store is larger than the limit")
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/bash")
        // bash counts `ulimit -f` in 1024-byte blocks: 64 kB.
        shell.arguments = ["-c", #"ulimit -f 64; exec "$0" migrate "$1" --model "$2" --to "BookStore 2""#, ChrysalisRunner.binary.path, store, bundle]
        let errors = Pipe()
        shell.standardError = errors
        try shell.run()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        shell.waitUntilExit()
        XCTAssertEqual(shell.terminationReason, .exit, "not killed by SIGXFSZ: \(said)")
        XCTAssertEqual(shell.terminationStatus, 1, said)
        XCTAssertTrue(said.contains("this process may write files of at most ") && said.contains("(its file size limit, `ulimit -f`)"), said)
        XCTAssertTrue(said.contains("Fix: raise the limit"), said)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)), before)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["BookStore.sqlite"], "nothing made beside it")
    }

    /// Too few open files once failed in whichever open came first, blamed on permissions. A
    /// low soft limit is raised toward the hard one; a hard limit too low is refused, named.
    func testAnOpenFileLimitIsRaisedOrNamed() throws {
        let folder = try scratchDirectory()
        let bundle = ChrysalisRunner.demoResources.appendingPathComponent("BookStore.xcdatamodeld").path
        let store = folder.appendingPathComponent("BookStore.sqlite").path
        XCTAssertEqual(try ChrysalisRunner.run(["fixture", bundle, "--version", "BookStore", "--rows", "50", "--out", store]).status, 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        func run(_ limit: String) throws -> (Int32, String) {
            let shell = Process()
            shell.executableURL = URL(fileURLWithPath: "/bin/bash")
            shell.arguments = ["-c", "ulimit \(limit) 12; exec \"$0\" migrate \"$1\" --model \"$2\" --to \"BookStore 2\"", ChrysalisRunner.binary.path, store, bundle]
            let errors = Pipe()
            shell.standardError = errors
            shell.standardOutput = FileHandle.nullDevice
            try shell.run()
            let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            shell.waitUntilExit()
            return (shell.terminationStatus, said)
        }
        let hard = try run("-n")
        XCTAssertEqual(hard.0, 1, hard.1)
        XCTAssertTrue(hard.1.contains("this process may have at most 12 files open (its open-file limit, `ulimit -n`, hard limit 12)"), hard.1)
        XCTAssertFalse(hard.1.contains("permissions"), hard.1)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)), before)
        let soft = try run("-Sn")
        XCTAssertEqual(soft.0, 0, "a soft limit is raised, and the run works: \(soft.1)")
    }
}
