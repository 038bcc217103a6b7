import Demo
import Foundation
import MigrationEngine
import ObjectModel
import SQLiteStore
import XCTest

/// Recovery that tells the truth (issue 29 §5): the state a kill leaves half way through a plan
/// (the store at an intermediate version, the original in its backup, the plan journal), then
/// the journal damaged or the backup deleted, as a power cut or a user might. Nothing is deleted
/// or put back on a journal's word unless it can be read, and no file is called the original
/// unless it is.
final class RecoveryTruthTests: XCTestCase {
    /// A BookStore store at its first version with `rows` generated rows, in a folder of its own.
    private func bookStore1(rows: Int) throws -> (directory: URL, path: String) {
        let directory = try scratchDirectory()
        let path = directory.appendingPathComponent("BookStore.sqlite").path
        let model = try version(try bookStore(), "BookStore").model
        let store = try PersistentStore.create(at: path, model: model)
        try DataGenerator(model: model).fill(store, rows: rows)
        try store.close()
        return (directory, path)
    }

    /// The folder as a kill after step 2 of the four-step BookStore plan leaves it.
    private func killedHalfWay() throws -> (store: String, journal: String, backup: String) {
        let (directory, path) = try bookStore1(rows: 30)
        let frozen = try scratchDirectory()
        var options = MigrationOptions(policies: DemoResources.policies)
        options.afterStep = { completed in
            guard completed.index == 2 else { return }
            // Links, not copies: the very files a kill here would leave (a copy of the backup is
            // another file, which recovery rightly refuses to take for the original).
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
                try FileManager.default.linkItem(
                    at: directory.appendingPathComponent(name), to: frozen.appendingPathComponent(name))
            }
        }
        let plan = try MigrationPlan.make(
            store: path, bundle: try bookStore(),
            mappings: [try DemoResources.mapping("BookStore3To4"), try DemoResources.mapping("BookStore4To5")],
            strategy: .iterative)
        _ = try MigrationRunner.run(plan, store: path, options: options)
        let store2 = frozen.appendingPathComponent("BookStore.sqlite").path
        let journal = frozen.appendingPathComponent(".BookStore.sqlite.chrysalis-plan").path
        XCTAssertTrue(FileManager.default.fileExists(atPath: journal), "the premise: the journal of a plan half done")
        // The journal names the original where the plan ran; the frozen copy's is beside it.
        let text = try String(contentsOfFile: journal, encoding: .utf8)
        try text.replacingOccurrences(
            of: directory.path.replacingOccurrences(of: "/", with: "\\/"),
            with: frozen.path.replacingOccurrences(of: "/", with: "\\/")
        )
        .write(toFile: journal, atomically: true, encoding: .utf8)
        return (store2, journal, frozen.appendingPathComponent("BookStore~.sqlite").path)
    }

    func testADamagedJournalIsNeverTakenForNothingToRecover() throws {
        let damage: [(String, (String) throws -> Void)] = [
            ("empty", { try Data().write(to: URL(fileURLWithPath: $0)) }),
            (
                "cut short",
                { path in
                    try Data(try Data(contentsOf: URL(fileURLWithPath: path)).prefix(40)).write(
                        to: URL(fileURLWithPath: path))
                }
            ),
            (
                "naming a file elsewhere",
                { path in
                    let text = try String(contentsOfFile: path, encoding: .utf8)
                    let original = try XCTUnwrap(text.range(of: #""original":"[^"]*""#, options: .regularExpression))
                    try text.replacingCharacters(in: original, with: #""original":"\/etc\/passwd""#).write(
                        toFile: path, atomically: true, encoding: .utf8)
                }
            ),
        ]
        for (name, damaging) in damage {
            let (store, journal, _) = try killedHalfWay()
            try damaging(journal)
            let before = try digest(store)
            XCTAssertThrowsError(try MigrationRunner.recover(store: store), name) { error in
                let text = "\(error)"
                XCTAssertTrue(
                    text.contains("is damaged") && text.contains("backups beside the store: BookStore~.sqlite"),
                    "\(name): \(text)")
            }
            XCTAssertTrue(FileManager.default.fileExists(atPath: journal), "\(name): the journal is kept")
            XCTAssertEqual(try digest(store), before, "\(name): the store is untouched")
            XCTAssertTrue(
                MigrationRunner.pendingRecovery(store: store)?.contains("damaged") == true, "\(name): inspect says so")
            XCTAssertThrowsError(
                try MigrationPlan.make(store: store, bundle: try bookStore()), "\(name): plan refuses too")
        }
    }

    func testADeletedBackupIsNeverCalledPutBack() throws {
        let (store, journal, backup) = try killedHalfWay()
        for suffix in ["", "-wal", "-shm"] { unlink(backup + suffix) }
        XCTAssertThrowsError(try MigrationRunner.recover(store: store)) { error in
            let text = "\(error)"
            XCTAssertTrue(
                text.contains("the original's backup \(backup) is gone") && text.contains("cannot be put back"), text)
            XCTAssertFalse(text.contains("was put back"), text)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: journal), "the journal stays, so inspect keeps warning")
    }

    /// Whatever else sits at the backup's name (a link to another user's store at the same
    /// version, a stale copy of the original) passes a check by hashes; recovery knows the file
    /// it wrote by its inode, size and time, puts nothing back and deletes nothing.
    func testAFilePlantedAtTheBackupsNameIsNeverPutBack() throws {
        let plants: [(String, (String, String) throws -> Void)] = [
            (
                "a link to another store at that version",
                { backup, other in
                    for suffix in ["", "-wal", "-shm"] { unlink(backup + suffix) }
                    try FileManager.default.createSymbolicLink(atPath: backup, withDestinationPath: other)
                }
            ),
            (
                "a stale copy at that version",
                { backup, other in
                    for suffix in ["", "-wal", "-shm"] { unlink(backup + suffix) }
                    try FileManager.default.copyItem(atPath: other, toPath: backup)
                }
            ),
            (
                "the backup changed since it was written",
                { backup, _ in
                    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: backup))
                    try handle.seekToEnd()
                    try handle.write(contentsOf: Data(repeating: 0, count: 4096))
                    try handle.close()
                }
            ),
        ]
        for (name, plant) in plants {
            let (store, journal, backup) = try killedHalfWay()
            let (_, other) = try bookStore1(rows: 5)
            let otherBefore = try digest(other)
            try plant(backup, other)
            let before = try digest(store)
            XCTAssertThrowsError(try MigrationRunner.recover(store: store), name) { error in
                let text = "\(error)"
                XCTAssertTrue(
                    text.contains("cannot be trusted to be the original")
                        && text.contains("nothing was put back or deleted"), "\(name): \(text)")
                XCTAssertFalse(text.contains("was put back first"), "\(name): \(text)")
            }
            XCTAssertEqual(
                try digest(store), before, "\(name): the interrupted store, the only copy of its data, is kept")
            XCTAssertEqual(try digest(other), otherBefore, "\(name): the other store is untouched")
            XCTAssertTrue(FileManager.default.fileExists(atPath: journal), "\(name): the journal stays")
            var info = stat()
            XCTAssertEqual(lstat(store, &info), 0)
            XCTAssertEqual(info.st_mode & S_IFMT, S_IFREG, "\(name): the store is still a file of its own, not a link")
        }
    }

    /// The folder moved (or is mounted elsewhere) since the kill: the journal's absolute path
    /// names the old place, and the backup beside the store, the very file written, is used.
    func testAFolderMovedSinceTheKillStillPutsTheOriginalBack() throws {
        let (store, journal, _) = try killedHalfWay()
        let folder = URL(fileURLWithPath: store).deletingLastPathComponent().path
        let text = try String(contentsOfFile: journal, encoding: .utf8)
        try text.replacingOccurrences(of: folder.replacingOccurrences(of: "/", with: "\\/"), with: "\\/mnt\\/old-place")
            .write(toFile: journal, atomically: true, encoding: .utf8)
        XCTAssertTrue(
            try String(contentsOfFile: journal, encoding: .utf8).contains("old-place"),
            "the premise: the journal names the old folder")
        let done = try MigrationRunner.recover(store: store)
        XCTAssertEqual(
            done, ["an earlier run was interrupted mid-plan; the original, at BookStore, was put back first"])
    }

    func testAnIntactJournalStillPutsTheOriginalBack() throws {
        let (store, journal, _) = try killedHalfWay()
        let done = try MigrationRunner.recover(store: store)
        XCTAssertEqual(
            done, ["an earlier run was interrupted mid-plan; the original, at BookStore, was put back first"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: journal))
    }

    /// An in-place step killed after it copied the store aside and before it committed: its copy
    /// is stale, and the next run makes one backup, `Name~.sqlite`, not a second beside it.
    func testAStaleBackupOfAnInPlaceStepIsNotKeptBesideANewOne() throws {
        let (directory, path) = try bookStore1(rows: 10)
        // What the kill left: the copy and the marker naming it; the store never changed.
        let stale = directory.appendingPathComponent("BookStore~.sqlite").path
        try FileManager.default.copyItem(atPath: path, toPath: stale)
        try Data((stale + "\n").utf8).write(to: directory.appendingPathComponent(".BookStore.sqlite.chrysalis-backup"))
        let plan = try MigrationPlan.make(store: path, bundle: try bookStore(), to: "BookStore 2")
        let report = try MigrationRunner.run(plan, store: path)
        XCTAssertEqual(report.backup, stale)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
                !$0.hasSuffix("-shm") && !$0.hasSuffix("-wal")
            }.sorted(),
            ["BookStore.sqlite", "BookStore~.sqlite"], "one backup, no marker left")
    }

    /// The marker of a step that did commit names the original: it is kept.
    func testABackupOfAStepThatCommittedIsKept() throws {
        let (directory, path) = try bookStore1(rows: 0)
        let plan = try MigrationPlan.make(store: path, bundle: try bookStore(), to: "BookStore 2")
        let report = try MigrationRunner.run(plan, store: path)
        let backup = try XCTUnwrap(report.backup)
        try Data((backup + "\n").utf8).write(to: directory.appendingPathComponent(".BookStore.sqlite.chrysalis-backup"))
        _ = try MigrationRunner.recover(store: path)
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: backup), "the store is at BookStore 2, its backup at BookStore: kept"
        )
    }

    /// A kill while step 1 copies the store aside: the journal is written, the backup not yet
    /// noted, and the half-made copy is a work file. The store never changed: recover says so,
    /// and never that the original was put back.
    func testAKillWhileStepOneCopiesTheStoreAsideSaysNothingChanged() throws {
        let (store, journal, backup) = try killedHalfWay()
        for sidecar in StoreFiles.sidecars(of: store) { unlink(sidecar) }
        XCTAssertEqual(rename(backup, store), 0, "the premise: the store is the original")
        var record = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: journal))) as? [String: Any])
        XCTAssertNotNil(record.removeValue(forKey: "originalFiles"), "the premise: a journal that noted its backup")
        try (JSONSerialization.data(withJSONObject: record) + Data("\n".utf8)).write(to: URL(fileURLWithPath: journal))
        XCTAssertEqual(
            MigrationRunner.pendingRecovery(store: store),
            """
            a migration to BookStore 5 was stopped before its first step changed the store, which is as it was, at \
            BookStore; `chrysalis recover` (or `migrate`) removes what it left
            """)
        let done = try MigrationRunner.recover(store: store)
        XCTAssertEqual(
            done,
            [
                """
                an earlier run was stopped before its first step changed the store, which is as it was, at \
                BookStore; the journal it left was removed
                """
            ])
        XCTAssertFalse(FileManager.default.fileExists(atPath: journal))
    }

    /// A one-step in-place plan killed before it committed: the store is as it was, and the copy
    /// the step made is named by `inspect` and by `recover`, which removes it.
    func testAnUncommittedInPlaceStepsCopyIsNamedWhenRemoved() throws {
        let (directory, path) = try bookStore1(rows: 10)
        let stale = directory.appendingPathComponent("BookStore~.sqlite").path
        try FileManager.default.copyItem(atPath: path, toPath: stale)
        try Data((stale + "\n").utf8).write(to: directory.appendingPathComponent(".BookStore.sqlite.chrysalis-backup"))
        XCTAssertEqual(
            MigrationRunner.pendingRecovery(store: path),
            """
            an in-place migration step was stopped before it committed, so the store is as it was; `chrysalis \
            recover` (or `migrate`) removes the copy it had made, BookStore~.sqlite
            """)
        XCTAssertEqual(
            try MigrationRunner.recover(store: path),
            [
                """
                an in-place step was stopped before it committed, so the store is as it was; the copy it had made, \
                \(stale), was removed
                """
            ])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["BookStore.sqlite"])
    }

    /// Step 1 of a plan, in place, killed before it committed: its copy is the plan's original,
    /// the store never changed. Recover removes the copy and the journal and says nothing was
    /// put back.
    func testAKillInStepOneBeforeItCommittedSaysNothingWasPutBack() throws {
        let (store, journal, backup) = try killedHalfWay()
        for sidecar in StoreFiles.sidecars(of: store) { unlink(sidecar) }
        unlink(store)
        try FileManager.default.copyItem(atPath: backup, toPath: store)
        let marker = URL(fileURLWithPath: store).deletingLastPathComponent()
            .appendingPathComponent(".BookStore.sqlite.chrysalis-backup")
        try Data((backup + "\n").utf8).write(to: marker)
        XCTAssertEqual(
            try MigrationRunner.recover(store: store),
            [
                """
                an in-place step was stopped before it committed, so the store is as it was; the copy it had made, \
                \(backup), was removed
                """,
                """
                an earlier run was stopped before its first step changed the store, which is as it was, at \
                BookStore; the journal it left was removed
                """,
            ])
        for file in [journal, backup, marker.path] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: file), file)
        }
    }
}
