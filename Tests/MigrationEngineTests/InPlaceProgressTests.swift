import Demo
import Foundation
import ObjectModel
import SQLiteStore
import XCTest

@testable import MigrationEngine

/// An in-place step's table count moves as its statements run (issue 31 §5), not all at once at
/// the end: the step reports the share of its statements done after each one.
final class InPlaceProgressTests: XCTestCase {
    func testTheShareOfStatementsDoneRisesWithEachStatement() throws {
        let bundle = try bookStore()
        let (from, to) = (try version(bundle, "BookStore 2"), try version(bundle, "BookStore 3"))
        let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        let store = try PersistentStore.create(at: path, model: from.model)
        try DataGenerator(model: from.model).fill(store, rows: 10)
        try store.close()
        let opened = try PersistentStore.open(at: path, mode: .readWrite)
        let metadata = try opened.metadata()
        let layouts = (try opened.layout(for: from.model), StoreLayout(model: to.model))
        var shares: [Double] = []
        try opened.withConnection { connection in
            try connection.inTransaction {
                try LightweightMigration(
                    connection: connection, inference: InferredMapping(from: from, to: to), source: layouts.0,
                    destination: layouts.1, path: path
                )
                .run(metadata: metadata) { shares.append($0) }
            }
        }
        try opened.close()
        XCTAssertGreaterThan(shares.count, 3, "a share after each statement, the indexes and the derived attributes")
        XCTAssertEqual(shares, shares.sorted(), "never goes back")
        XCTAssertEqual(shares.last, 1)
        XCTAssertLessThan(shares.first ?? 1, 1, "the first statement is not the whole step")
    }

    /// A backup's byte count moves as the copy's 4 MB chunks land and ends at the file's size:
    /// the megabyte counter no longer sits at 0/N until the copy ends.
    func testACopyCountsBytesAsTheyAreCopied() throws {
        let directory = try scratchDirectory()
        let file = directory.appendingPathComponent("Big.sqlite").path
        try Data(repeating: 7, count: 10 << 20).write(to: URL(fileURLWithPath: file))
        var copied: [Int] = []
        try FilePermissions(of: file).copy(file, to: file + ".copy") { copied.append($0) }
        XCTAssertEqual(copied, [4 << 20, 8 << 20, 10 << 20], "a count per 4 MB chunk")
    }

    /// The backup of a WAL store counts the store and its `-wal` as one copy.
    func testTheBackupCountsTheStoreAndItsWAL() throws {
        let bundle = try bookStore()
        let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        let store = try PersistentStore.create(at: path, model: try version(bundle, "BookStore").model)
        try DataGenerator(model: try version(bundle, "BookStore").model).fill(store, rows: 2_000)
        let bytes = StoreFiles.bytes(of: path)
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: path + "-wal"), "the store is open, so its -wal holds pages")
        var copied: [Int] = []
        _ = try StoreSwap.copyAside(store: path) { copied.append($0) }
        try store.close()
        XCTAssertEqual(copied.last, bytes, "the store and its -wal, byte for byte")
        XCTAssertEqual(copied, copied.sorted(), "never goes back")
    }

    /// The deferred index stage counts index by index.
    func testDeferredIndexesCountEachIndexAsItIsBuilt() throws {
        let bundle = try bookStore()
        let model = try version(bundle, "BookStore 3").model
        let path = try scratchDirectory().appendingPathComponent("Indexes.sqlite").path
        let store = try PersistentStore.create(at: path, model: model)
        var built = 0
        let layout = StoreLayout(model: model)
        try store.withConnection { connection in
            let indexes = try DeferredIndexes.drop(on: connection, layout: layout)
            try indexes.create(on: connection) { built += 1 }
            XCTAssertEqual(built, indexes.statements.count)
        }
        try store.close()
        XCTAssertGreaterThan(built, 0, "BookStore 3 has indexes to build")
    }

    /// The ETA blends each new estimate in over a few seconds: an estimate that swings from 17 s
    /// to 315 s and back, as the demo's did, moves the shown ETA by a fraction of the swing.
    func testTheETAIsSteadyThroughASwingingEstimate() throws {
        let eta = SteadyEstimate()
        XCTAssertEqual(eta.smoothed(nil, elapsed: 0), nil, "nothing to say before the first estimate")
        XCTAssertEqual(eta.smoothed(17, elapsed: 1), 17)
        let afterSwing = try XCTUnwrap(eta.smoothed(315, elapsed: 1.05))
        XCTAssertLessThan(afterSwing, 30, "a swing 50 ms later moves the ETA a little, not to 315 s")
        XCTAssertGreaterThan(afterSwing, 16.9)
        let back = try XCTUnwrap(eta.smoothed(17, elapsed: 1.10))
        XCTAssertLessThan(abs(back - 17), 13)
        let later = try XCTUnwrap(eta.smoothed(nil, elapsed: 6.10))
        XCTAssertEqual(later, max(back - 5, 0), accuracy: 0.001, "without a new estimate it counts down")
        let held = try XCTUnwrap(eta.smoothed(300, elapsed: 30))
        XCTAssertGreaterThan(held, 290, "an estimate that holds for long is taken")
    }
}

/// An in-place step's statements move the bar by their expected cost, from the rows of the
/// tables they name (issue 49 §4: one notch per statement made a Wire upgrade's ETA 2–3× short).
final class StatementWeightsTests: XCTestCase {
    func testTheTablesAStatementNamesAreFoundAfterTheirKeywords() {
        XCTAssertEqual(StatementWeights.tables(in: "DROP TABLE IF EXISTS ZMESSAGE"), ["ZMESSAGE"])
        XCTAssertEqual(
            StatementWeights.tables(
                in: #"INSERT INTO "_new Z" (Z_PK, ZMESSAGE) SELECT Z_PK, ZMESSAGE FROM main.zasset"#),
            ["_NEW Z", "ZASSET"],
            "a column named like a table is not the table; main. is skipped")
        XCTAssertEqual(
            StatementWeights.tables(in: "CREATE INDEX IF NOT EXISTS Z_I ON ZUSER (ZNAME)"), ["ZUSER"],
            "an index is not a table")
        XCTAssertEqual(
            StatementWeights.tables(in: "UPDATE ACHANGE SET ZENTITY = 3 WHERE ZENTITY IN (SELECT Z_ENT FROM ZX)"),
            ["ACHANGE", "ZX"])
    }

    func testAStatementWeighsWhatItDoesToTheRowsItNames() {
        let weights = StatementWeights(rows: ["ZWIDE": 100_000, "ZNARROW": 100_000, "Z_1TAGS": 100_000])
        let wideColumns = (1...90).map { "ZC\($0)" }.joined(separator: ", ")
        let wideCopy = weights.weight(
            of: SQLStatement("INSERT INTO _new_ZWIDE (\(wideColumns)) SELECT \(wideColumns) FROM ZWIDE"))
        let narrowCopy = weights.weight(
            of: SQLStatement("INSERT INTO _new_Z_1TAGS (Z_1A, Z_2B) SELECT Z_1A, Z_2B FROM Z_1TAGS"))
        let orderedCopy = weights.weight(
            of: SQLStatement(
                "INSERT INTO _new_Z_1TAGS (Z_1A, Z_2B, Z_FOK) SELECT a, b, row_number() OVER (PARTITION BY a ORDER BY b) FROM Z_1TAGS"
            ))
        let addColumn = weights.weight(of: SQLStatement("ALTER TABLE ZWIDE ADD COLUMN ZNEW INTEGER"))
        let dropColumn = weights.weight(of: SQLStatement("ALTER TABLE ZWIDE DROP COLUMN ZC1"))
        let index = weights.weight(of: SQLStatement("CREATE INDEX Z_WIDE_C1 ON ZWIDE (ZC1)"))
        XCTAssertEqual(addColumn, StatementWeights.perStatement, "adding a column touches no row")
        XCTAssertGreaterThan(wideCopy, 5 * narrowCopy, "a copy computes every column of every row")
        XCTAssertGreaterThan(orderedCopy, 2 * narrowCopy, "a window sorts the rows")
        XCTAssertGreaterThan(dropColumn, 100 * addColumn, "dropping a column rewrites every row")
        XCTAssertGreaterThan(index, 100 * addColumn)
        XCTAssertEqual(
            weights.weight(of: SQLStatement("UPDATE ZGONE SET Z_ENT = 2")), StatementWeights.perStatement,
            "a table with no rows costs its statement only")
    }

    /// A real step's shares follow the weights: on a store whose `Book` rows dwarf the rest,
    /// the statements that copy them fill most of the change's part of the bar.
    func testTheShareOfARealStepFollowsItsHeavyStatements() throws {
        let bundle = try bookStore()
        let (from, to) = (try version(bundle, "BookStore 2"), try version(bundle, "BookStore 3"))
        let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        let store = try PersistentStore.create(at: path, model: from.model)
        try DataGenerator(model: from.model).fill(store, rows: 10_000)
        try store.close()
        let opened = try PersistentStore.open(at: path)
        let layout = try opened.layout(for: from.model)
        let work = try opened.withReadConnection { connection in
            try LightweightMigration(
                connection: connection, inference: InferredMapping(from: from, to: to), source: layout,
                destination: StoreLayout(model: to.model), path: path
            ).plannedWork()
        }
        try opened.close()
        let weights = work.changes + work.indexes
        XCTAssertEqual(weights.count, work.statements.changes.count + work.statements.indexes.count)
        XCTAssertGreaterThan(work.modelRows, 10_000, "the rows of every model table, by their highest rowid")
        let heaviest = try XCTUnwrap(weights.max()), lightest = try XCTUnwrap(weights.min())
        XCTAssertGreaterThan(heaviest, 10 * lightest, "statements differ by far, and so do their shares")
        XCTAssertEqual(work.total, weights.reduce(0, +) + work.derived, accuracy: 1)
    }
}
