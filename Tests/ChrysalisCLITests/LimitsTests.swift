import Foundation
import TestSupport
import XCTest

/// Under a resource limit a run works or fails at once with a message naming the limit and its
/// fix; it is never killed half way.
final class LimitsTests: XCTestCase {
    private let bundle = ChrysalisRunner.demoResources.appendingPathComponent("BookStore.xcdatamodeld").path

    /// A BookStore store with `rows` rows per root entity, alone in a folder of its own.
    private func store(rows: Int) throws -> (folder: URL, path: String) {
        let folder = try scratchDirectory()
        let path = folder.appendingPathComponent("BookStore.sqlite").path
        XCTAssertEqual(
            try ChrysalisRunner.run([
                "fixture", bundle, "--version", "BookStore", "--rows", String(rows), "--out", path,
            ]).status, 0)
        return (folder, path)
    }

    /// `chrysalis migrate` of `store` to BookStore 2 under bash's `ulimit` with `limit`: how it
    /// ended, and its standard error.
    private func migrate(_ store: String, under limit: String) throws -> (
        reason: Process.TerminationReason, status: Int32, stderr: String
    ) {
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/bash")
        shell.arguments = [
            "-c", "ulimit \(limit); exec \"$0\" migrate \"$1\" --model \"$2\" --to \"BookStore 2\"",
            ChrysalisRunner.binary.path, store, bundle,
        ]
        let errors = Pipe()
        shell.standardError = errors
        shell.standardOutput = FileHandle.nullDevice
        try shell.run()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        shell.waitUntilExit()
        return (shell.terminationReason, shell.terminationStatus, said)
    }

    /// A volume with bytes to spare and no inode left: "No space left on device" at the first
    /// new file was reported as a full disk with 60 MB free. Refused before any work, naming
    /// inodes; the store and its folder as they were.
    func testAVolumeWithoutInodesIsNamedBeforeAnyWork() throws {
        let volume = try TinyVolume(megabytes: 64, inodes: 5, test: self)
        let store = volume.path("BookStore.sqlite")
        XCTAssertEqual(
            try ChrysalisRunner.run(["fixture", bundle, "--version", "BookStore", "--rows", "100", "--out", store])
                .status, 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let listing = try FileManager.default.contentsOfDirectory(atPath: volume.root.path)
        let run = try migrate(store, under: "-n 1024")
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertTrue(run.stderr.contains("not enough free inodes for the plan BookStore → BookStore 2"), run.stderr)
        XCTAssertTrue(run.stderr.contains("bytes are not what is short"), run.stderr)
        XCTAssertFalse(run.stderr.contains("free space"), run.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)), before)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: volume.root.path), listing)
    }

    /// SQLite sorts an index build that outgrows its memory in its temporary folder, often a
    /// small `/tmp` of its own: when that fills, the message said the store's volume was full
    /// with gigabytes free there. It names the folder, how it was chosen, and SQLITE_TMPDIR.
    func testAFullTemporaryFolderIsNamedNotTheStoresVolume() throws {
        let temporary = try TinyVolume(megabytes: 1, test: self)
        let (_, store) = try self.store(rows: 0)
        let three = URL(fileURLWithPath: store).deletingLastPathComponent().appendingPathComponent("Three.sqlite").path
        XCTAssertEqual(
            try ChrysalisRunner.run([
                "fixture", bundle, "--version", "BookStore 3", "--rows", "200000", "--out", three,
            ]).status, 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: three))
        let mapping = ChrysalisRunner.demoResources.appendingPathComponent("Mappings/BookStore3To4.mapping.yaml").path
        let run = try ChrysalisRunner.run(
            ["migrate", three, "--model", bundle, "--mappings", mapping, "--to", "BookStore 4"],
            executable: "chrysalis-demos", environment: ["SQLITE_TMPDIR": temporary.root.path])
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertTrue(
            run.stderr.contains("SQLite's temporary folder \(temporary.root.path) (from SQLITE_TMPDIR)"), run.stderr)
        XCTAssertTrue(run.stderr.contains("point SQLITE_TMPDIR at a folder on a volume with about"), run.stderr)
        XCTAssertTrue(run.stderr.contains("the store is as it was, at BookStore 3"), run.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: three)), before)
    }

    func testAFileSizeLimitBelowTheStoreIsNamedBeforeAnyWork() throws {
        let (folder, store) = try store(rows: 3000)
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        XCTAssertGreaterThan(before.count, 128 * 1024, "the premise: the store is larger than the limit")
        // bash counts `ulimit -f` in 1024-byte blocks: 64 kB.
        let run = try migrate(store, under: "-f 64")
        XCTAssertEqual(run.reason, .exit, "not killed by SIGXFSZ: \(run.stderr)")
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertTrue(
            run.stderr.contains("this process may write files of at most ")
                && run.stderr.contains("(its file size limit, `ulimit -f`)"), run.stderr)
        XCTAssertTrue(run.stderr.contains("Fix: raise the limit"), run.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)), before)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: folder.path), ["BookStore.sqlite"],
            "nothing made beside it")
    }

    /// Too few open files once failed in whichever open came first, blamed on permissions. A
    /// low soft limit is raised toward the hard one; a hard limit too low is refused, named.
    func testAnOpenFileLimitIsRaisedOrNamed() throws {
        let (_, store) = try store(rows: 50)
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let hard = try migrate(store, under: "-n 12")
        XCTAssertEqual(hard.status, 1, hard.stderr)
        XCTAssertTrue(
            hard.stderr.contains(
                "this process may have at most 12 files open (its open-file limit, `ulimit -n`, hard limit 12)"),
            hard.stderr)
        XCTAssertFalse(hard.stderr.contains("permissions"), hard.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)), before)
        let soft = try migrate(store, under: "-Sn 12")
        XCTAssertEqual(soft.status, 0, "a soft limit is raised, and the run works: \(soft.stderr)")
    }

    /// Under `ulimit -v 150000` a run once hung at planning, libdispatch waiting forever for a
    /// thread it could not start, and SIGTERM unheard. A low soft limit is raised toward the hard
    /// one; a hard limit below what a run reserves is refused, named, before any work.
    func testAnAddressSpaceLimitIsRaisedOrNamed() throws {
        let (folder, store) = try store(rows: 50)
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let hard = try migrate(store, under: "-v 300000")
        XCTAssertEqual(hard.reason, .exit, hard.stderr)
        XCTAssertEqual(hard.status, 1, hard.stderr)
        XCTAssertTrue(
            hard.stderr.contains(
                "this process may map at most 300000 KB of memory (its address-space limit, `ulimit -v`, hard limit 300000 KB)"
            ), hard.stderr)
        XCTAssertTrue(
            hard.stderr.contains("Fix: raise the limit (`ulimit -v 1048576` or `ulimit -v unlimited`)"), hard.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)), before)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: folder.path), ["BookStore.sqlite"],
            "nothing made beside it")
        let soft = try migrate(store, under: "-Sv 300000")
        XCTAssertEqual(soft.status, 0, "a soft limit is raised, and the run works: \(soft.stderr)")
    }
}
