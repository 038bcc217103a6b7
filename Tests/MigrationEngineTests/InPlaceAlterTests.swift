import Demo
import Foundation
import GRDB
import MigrationEngine
import ObjectModel
import SQLiteStore
import XCTest

/// An inferred step whose tables are only altered runs on the store itself, in one transaction:
/// untouched tables and indexes are not rewritten, a backup is a byte copy made first, and a
/// cancel or failure before the commit leaves the store as it was (SQLite rolls it back).
final class InPlaceAlterTests: XCTestCase {
    private func makeBookStore1(at path: String, books: Int = 20) throws {
        let model = try version(try bookStore(), "BookStore").model
        let store = try PersistentStore.create(at: path, model: model)
        try DataGenerator(model: model).fill(store, rows: books)
        try store.close()
    }

    private func rootPages(_ path: String) throws -> [String: Int] {
        Dictionary(
            uniqueKeysWithValues: try rows(
                path, "SELECT name, rootpage FROM sqlite_master WHERE type IN ('table', 'index') AND name LIKE 'Z%'"
            )
            .map { (String.fromDatabaseValue($0[0]) ?? "", Int.fromDatabaseValue($0[1]) ?? 0) })
    }

    private func plan(_ path: String, to target: String) throws -> MigrationPlan {
        try MigrationPlan.make(store: path, bundle: try bookStore(), to: target)
    }

    func testAddingAnAttributeAltersInPlaceAndKeepsABytewiseBackup() throws {
        let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        try makeBookStore1(at: path)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let pagesBefore = try rootPages(path)
        let report = try MigrationRunner.run(try plan(path, to: "BookStore 2"), store: path)
        XCTAssertEqual(report.steps.map(\.passes), [["inferred, in place"]])
        XCTAssertEqual(report.rowsBefore, [:], "a schema-only step reads no rows")
        // The same tables and indexes, at the same pages: nothing was copied or rebuilt.
        XCTAssertEqual(try rootPages(path), pagesBefore)
        XCTAssertEqual(
            try rows(path, "SELECT count(*), count(ZAUTHOR) FROM ZBOOK")[0], [20.databaseValue, 0.databaseValue])
        let backup = try XCTUnwrap(report.backup)
        XCTAssertEqual(
            try Data(contentsOf: URL(fileURLWithPath: backup)), original, "the backup is the original, byte for byte")
        XCTAssertEqual(try directoryListing(path), ["BookStore.sqlite", "BookStore~.sqlite"])
        let store = try PersistentStore.open(at: path)
        XCTAssertEqual(
            try store.metadata().versionHashes,
            VersionHash.entityHashes(of: try version(try bookStore(), "BookStore 2").model))
        try store.close()
    }

    func testWithoutABackupNothingButTheStoreRemains() throws {
        let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        try makeBookStore1(at: path)
        let report = try MigrationRunner.run(try plan(path, to: "BookStore 3"), store: path, keepBackup: false)
        XCTAssertEqual(report.steps.count, 1, "one step straight from BookStore to BookStore 3, as Core Data infers it")
        XCTAssertNil(report.backup)
        XCTAssertEqual(try directoryListing(path), ["BookStore.sqlite"])
        XCTAssertEqual(try rows(path, "SELECT count(*) FROM ZPUBLICATION")[0][0], 20.databaseValue)
    }

    func testCancelBeforeTheCommitRollsBackThroughSQLite() throws {
        let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        try makeBookStore1(at: path)
        let before = try digest(path)
        let token = CancellationToken()
        let log = ProgressLog()
        // The schema has changed by the time verification starts; cancelling there must undo it.
        log.onProgress = { if $0.stage == .verify { token.cancel() } }
        XCTAssertThrowsError(
            try MigrationRunner.run(
                try plan(path, to: "BookStore 2"), store: path, options: MigrationOptions(cancellation: token))
        ) { error in
            XCTAssertEqual((error as? MigrationError)?.kind, .cancelled, "\(error)")
        }
        XCTAssertTrue(log.values.contains { $0.stage == .verify })
        XCTAssertEqual(try digest(path), before, "the store is byte-identical")
        XCTAssertEqual(try directoryListing(path), ["BookStore.sqlite"], "no backup or journal left behind")
        XCTAssertNoThrow(
            try MigrationRunner.run(try plan(path, to: "BookStore 2"), store: path, keepBackup: false),
            "the next run finishes the job")
        XCTAssertEqual(
            try rows(path, "SELECT count(*) FROM pragma_table_info('ZBOOK') WHERE name = 'ZAUTHOR'")[0][0],
            1.databaseValue)
    }

    func testAStoreThatChangedModelBeforeTheStepIsRefused() throws {
        let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        try makeBookStore1(at: path)
        let bundle = try bookStore()
        // Planned at BookStore, then migrated by someone else before the step runs.
        _ = try MigrationRunner.run(try plan(path, to: "BookStore 2"), store: path, keepBackup: false)
        XCTAssertThrowsError(
            try InPlaceMigration.run(
                store: path, from: try version(bundle, "BookStore"), to: try version(bundle, "BookStore 2"))
        ) { error in
            XCTAssertEqual((error as? MigrationError)?.kind, .wrongModel, "\(error)")
        }
    }
}
