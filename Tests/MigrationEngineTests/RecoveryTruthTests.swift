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
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
                try FileManager.default.copyItem(at: directory.appendingPathComponent(name), to: frozen.appendingPathComponent(name))
            }
        }
        let plan = try MigrationPlan.make(store: path, bundle: try bookStore(),
                                          mappings: [try DemoResources.mapping("BookStore3To4"), try DemoResources.mapping("BookStore4To5")], route: .stepwise)
        _ = try MigrationRunner.run(plan, store: path, options: options)
        let store2 = frozen.appendingPathComponent("BookStore.sqlite").path
        let journal = frozen.appendingPathComponent(".BookStore.sqlite.chrysalis-plan").path
        XCTAssertTrue(FileManager.default.fileExists(atPath: journal), "the premise: the journal of a plan half done")
        // The journal names the original where the plan ran; the frozen copy's is beside it.
        let text = try String(contentsOfFile: journal, encoding: .utf8)
        try text.replacingOccurrences(of: directory.path.replacingOccurrences(of: "/", with: "\\/"), with: frozen.path.replacingOccurrences(of: "/", with: "\\/"))
            .write(toFile: journal, atomically: true, encoding: .utf8)
        return (store2, journal, frozen.appendingPathComponent("BookStore~.sqlite").path)
    }

    func testADamagedJournalIsNeverTakenForNothingToRecover() throws {
        let damage: [(String, (String) throws -> Void)] = [
            ("empty", { try Data().write(to: URL(fileURLWithPath: $0)) }),
            ("cut short", { path in try Data(try Data(contentsOf: URL(fileURLWithPath: path)).prefix(40)).write(to: URL(fileURLWithPath: path)) }),
            ("naming a file elsewhere", { path in
                let text = try String(contentsOfFile: path, encoding: .utf8)
                let original = try XCTUnwrap(text.range(of: #""original":"[^"]*""#, options: .regularExpression))
                try text.replacingCharacters(in: original, with: #""original":"\/etc\/passwd""#).write(toFile: path, atomically: true, encoding: .utf8)
            }),
        ]
        for (name, damaging) in damage {
            let (store, journal, _) = try killedHalfWay()
            try damaging(journal)
            let before = try digest(store)
            XCTAssertThrowsError(try MigrationRunner.recover(store: store), name) { error in
                let text = "\(error)"
                XCTAssertTrue(text.contains("is damaged") && text.contains("backups beside the store: BookStore~.sqlite"), "\(name): \(text)")
            }
            XCTAssertTrue(FileManager.default.fileExists(atPath: journal), "\(name): the journal is kept")
            XCTAssertEqual(try digest(store), before, "\(name): the store is untouched")
            XCTAssertTrue(MigrationRunner.pendingRecovery(store: store)?.contains("damaged") == true, "\(name): inspect says so")
            XCTAssertThrowsError(try MigrationPlan.make(store: store, bundle: try bookStore()), "\(name): plan refuses too")
        }
    }

    func testADeletedBackupIsNeverCalledPutBack() throws {
        let (store, journal, backup) = try killedHalfWay()
        for suffix in ["", "-wal", "-shm"] { unlink(backup + suffix) }
        XCTAssertThrowsError(try MigrationRunner.recover(store: store)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("the original's backup \(backup) is gone") && text.contains("cannot be put back"), text)
            XCTAssertFalse(text.contains("was put back"), text)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: journal), "the journal stays, so inspect keeps warning")
    }

    func testAnIntactJournalStillPutsTheOriginalBack() throws {
        let (store, journal, _) = try killedHalfWay()
        let done = try MigrationRunner.recover(store: store)
        XCTAssertEqual(done, ["an earlier run was interrupted mid-plan; the original, at BookStore, was put back first"])
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
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasSuffix("-shm") && !$0.hasSuffix("-wal") }.sorted(),
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
        XCTAssertTrue(FileManager.default.fileExists(atPath: backup), "the store is at BookStore 2, its backup at BookStore: kept")
    }
}
