import Foundation
import TestSupport
import XCTest

/// Another user's app and the store: `chrysalis` run unprivileged cannot read another user's
/// `/proc/<pid>/fd`, and an idle connection holds no lock on the database file, yet a connection
/// to a WAL store holds SQLite's lock on its `-shm` for as long as it is open, which any process
/// that can open that file sees. The app is named before the first write, and nothing changes.
final class OtherUsersTests: FixtureTestCase {
    private let books = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Sources/Demo/Resources/Books")
    /// `nobody`, as the unprivileged user running `chrysalis`.
    private let nobody: UInt32 = 65_534

    /// A folder and a copy of the Books demo's first store, both `nobody`'s.
    private func nobodysStore() throws -> (folder: URL, store: URL) {
        try EndToEnd.require(
            geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
            "needs root, to run the app and chrysalis as two users")
        let folder = try scratchDirectory()
        let store = try Fixtures.copyStore(books.appendingPathComponent("Model1.sqlite"), into: folder)
        for path in [folder.path, store.path] { XCTAssertEqual(chown(path, nobody, nobody), 0) }
        XCTAssertEqual(chmod(folder.path, 0o755), 0)
        XCTAssertEqual(chmod(store.path, 0o644), 0)
        return (folder, store)
    }

    /// `chrysalis migrate … --to Model2` as `nobody`.
    private func migrateAsNobody(_ store: URL) throws -> ChrysalisRunner.Result {
        try ChrysalisRunner.run(
            [
                "--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups", ChrysalisRunner.binary.path, "migrate",
                store.path, "--model", books.appendingPathComponent("Model.xcdatamodeld").path, "--to", "Model2",
            ], executable: "/usr/bin/setpriv")
    }

    /// A rollback-journal store: an idle app takes no lock, and another user's open files cannot
    /// be read, so nothing could show it; the run says so before its first write.
    func testARollbackJournalStoreSaysWhatCannotBeSeenBeforeTheRun() throws {
        let (_, store) = try nobodysStore()
        let result = try migrateAsNobody(store)
        XCTAssertEqual(result.status, 0, result.stderr)
        let warning = try XCTUnwrap(result.stderr.split(separator: "\n").first { $0.hasPrefix("warning: ") })
        XCTAssertTrue(warning.contains("keeps a rollback journal, not a WAL"), String(warning))
        XCTAssertTrue(warning.contains("of other users cannot be read without privileges"), String(warning))
        XCTAssertTrue(warning.contains("quit every app using the store"), String(warning))
    }

    /// Unprivileged, owning the folder but not the store (root's): a mapping step could not give
    /// the new store root's ownership, and the kernel refuses the link that keeps the original.
    /// Refused before any work, naming the owner, with nothing left beside the store.
    func testAStoreOfAnotherOwnerIsRefusedBeforeAMappingStep() throws {
        try EndToEnd.require(
            geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
            "needs root, to run the app and chrysalis as two users")
        let resources = books.deletingLastPathComponent()
        let folder = try scratchDirectory()
        let store = folder.appendingPathComponent("BookStore.sqlite")
        let made = try ChrysalisRunner.run([
            "fixture", resources.appendingPathComponent("BookStore.xcdatamodeld").path, "--version", "BookStore 3",
            "--rows", "20", "--out", store.path,
        ])
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertEqual(chown(folder.path, nobody, nobody), 0)
        XCTAssertEqual(chmod(folder.path, 0o755), 0)
        XCTAssertEqual(chmod(store.path, 0o644), 0)
        let before = try Data(contentsOf: store)
        let result = try ChrysalisRunner.run(
            [
                "--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups", ChrysalisRunner.demos.path, "migrate",
                store.path, "--model", resources.appendingPathComponent("BookStore.xcdatamodeld").path, "--mappings",
                resources.appendingPathComponent("Mappings/BookStore3To4.mapping.yaml").path, "--to", "BookStore 4",
            ], executable: "/usr/bin/setpriv")
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("belongs to root, not to this user (uid \(nobody))"), result.stderr)
        XCTAssertTrue(result.stderr.contains("Fix: run the migration as root"), result.stderr)
        XCTAssertTrue(result.stderr.contains("nothing was changed"), result.stderr)
        XCTAssertEqual(try Data(contentsOf: store), before)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["BookStore.sqlite"])
    }

    func testAnotherUsersAppHoldingAWALStoreIsNamedBeforeTheFirstWrite() throws {
        let (folder, store) = try nobodysStore()
        // The app: root's process (so nobody cannot read its descriptors), idle after one read.
        let app = Process()
        app.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        app.arguments = [
            "python3", "-c",
            """
            import sqlite3, sys, time
            c = sqlite3.connect(sys.argv[1], isolation_level=None)
            c.execute("PRAGMA journal_mode=WAL").fetchall()
            c.execute("SELECT count(*) FROM Z_METADATA").fetchall()
            print("open", flush=True)
            time.sleep(60)
            """,
            store.path,
        ]
        let output = Pipe()
        app.standardOutput = output
        try app.run()
        addTeardownBlock {
            app.terminate()
            app.waitUntilExit()
        }
        XCTAssertEqual(
            String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines), "open")
        let before = try Data(contentsOf: store)
        let result = try migrateAsNobody(store)
        XCTAssertFalse(result.stderr.contains("warning: "), "a WAL store's holders are seen: \(result.stderr)")
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        XCTAssertTrue(result.stderr.contains("pid \(app.processIdentifier)"), result.stderr)
        XCTAssertTrue(result.stderr.contains("Model1.sqlite-shm (SQLite's lock on it)"), result.stderr)
        XCTAssertTrue(result.stderr.contains("nothing was changed"), result.stderr)
        XCTAssertEqual(try Data(contentsOf: store), before, "not a byte changed")
        XCTAssertFalse(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).contains("Model1~.sqlite"),
            "no backup, where the app's next write would have landed")
    }
}
