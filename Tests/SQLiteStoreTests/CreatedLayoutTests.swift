import Foundation
import GRDB
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

/// A new empty store made by Chrysalis has the layout Core Data gave the real store of the same
/// model version: the same tables, columns (names and declared types), indexes and entity rows.
final class CreatedLayoutTests: FixtureTestCase {
    /// Differences that are expected, each with its reason.
    private let justified: [String: String] = [
        // Core Data archives the model it saved with; Chrysalis records the model by its hashes
        // only. Core Data reads stores without the table (its own pre-2015 stores have none).
        "table Z_MODELCACHE": "Chrysalis does not write a model cache",
        // Persistent history is a store option (NSPersistentHistoryTrackingKey), not part of the model.
        "table ACHANGE": "persistent history tables", "table ATRANSACTION": "persistent history tables",
        "table ATRANSACTIONSTRING": "persistent history tables",
        // SampleModel_V2 was migrated in place after LuxuryCar's rename; Core Data left the old
        // name in Z_PRIMARYKEY (coredata-formats.md §d). A fresh store carries the current name.
        "Z_PRIMARYKEY 3 ExpensiveSportCar 2": "stale Z_NAME left by Core Data's in-place rename",
    ]

    func testEveryRealStoreLayoutIsReproduced() throws {
        var compared = 0
        var pairs: [(store: URL, model: ManagedObjectModel)] = []
        let verified = try Fixtures.verification()
        for entry in verified {
            if let contents = entry.contents {
                pairs.append((entry.store, try ModelXMLReader.read(contentsOf: contents)))
            } else if entry.modelCacheReproduces {
                // No version in the fixtures has the store's hashes (a model built in code, or a
                // model file edited after the release): its own Z_MODELCACHE is its model.
                pairs.append(
                    (
                        entry.store,
                        try XCTUnwrap(try PersistentStore.open(at: try copyOfFixture(entry.store).path).cachedModel())
                    ))
            }
        }
        XCTAssertEqual(pairs.count, verified.count, "every store VERIFICATION.txt lists has a model")
        for (store, model) in pairs {
            let real = try SchemaSnapshot.read(try copyOfFixture(store).path)
            let created = try scratchDirectory().appendingPathComponent("New.sqlite").path
            _ = try PersistentStore.create(at: created, model: model)
            let ours = try SchemaSnapshot.read(created)
            compare(real, ours, store: store.path)
            compared += 1
        }
        XCTAssertEqual(compared, pairs.count)
    }

    /// The snapshot's indexes with the primary key of each table in `tables` taken as a set: a
    /// table Core Data renamed in place keeps the column order it was made with (Wire 2.96's
    /// `Z_25TRUSTEDBYCLIENTS (Z_25TRUSTEDBYCLIENTS, Z_25TRUSTEDCLIENTS)`, made as `Z_25TRUSTEDCLIENTS`),
    /// so its key's order is the older model's.
    private static func keysAsSets(_ snapshot: SchemaSnapshot, in tables: Set<String>) -> Set<SchemaSnapshot.Index> {
        Set(
            snapshot.indexes.map { index in
                guard index.name.hasPrefix("sqlite_autoindex_"), tables.contains(index.table) else { return index }
                var sorted = index
                sorted.columns.sort()
                return sorted
            })
    }

    private func compare(_ real: SchemaSnapshot, _ ours: SchemaSnapshot, store: String) {
        var mine = ours
        // A table Core Data made whole has its columns in the order Core Data gives a new table;
        // one it renamed or added columns to in place has them in the order its history left.
        for table in Set(real.tables.keys).union(mine.tables.keys) {
            guard let theirs = real.tables[table], let columns = mine.tables[table] else {
                if justified["table \(table)"] == nil {
                    XCTFail("\(store): table \(table) only in \(real.tables[table] == nil ? "ours" : "Core Data's")")
                }
                continue
            }
            if real.freshTables.contains(table) {
                XCTAssertEqual(
                    mine.columnOrder[table], real.columnOrder[table], "\(store): columns of \(table), in order")
            } else {
                XCTAssertEqual(columns, theirs, "\(store): columns of \(table)")
            }
        }
        let renamed = Set(real.tables.keys).subtracting(real.freshTables)
        var real = real
        real.indexes = Self.keysAsSets(real, in: renamed)
        mine.indexes = Self.keysAsSets(mine, in: renamed)
        let historyTables = Set(["ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING"])
        let theirIndexes = real.indexes.filter { !historyTables.contains($0.table) }
        if real.framework < 847 {
            // Before framework 847 Core Data named an `indexed` attribute's index
            // `ZTABLE_ZCOLUMN_INDEX` and a compound index `ZTABLE_ZA_ZB` (Wire up to 2.31, framework
            // 754); it has named them as fetch indexes (`Z_Entity_a`) since (2.39, framework 847).
            // Chrysalis writes today's names; the columns agree.
            let ourShapes = Set(mine.indexes.map(\.shape)), theirShapes = Set(theirIndexes.map(\.shape))
            XCTAssertEqual(ourShapes.subtracting(theirShapes).sorted(), [], "\(store): index shapes only in ours")
            XCTAssertEqual(
                theirShapes.subtracting(ourShapes).sorted(), [], "\(store): index shapes only in Core Data's")
        } else {
            XCTAssertEqual(mine.indexes.subtracting(theirIndexes), [], "\(store): indexes only in ours")
            // Core Data's in-place migrations leave indexes under older names beside the new ones
            // (Wire 2.90: `Z_14ADDEDUSERS_Z_22ADDEDUSERS_INDEX` on `Z_16ADDEDUSERS`, from when the
            // entities were numbered 14 and 22): each extra one duplicates one Chrysalis writes, or
            // is named for the join table's name before Core Data renamed it (Wire 2.96:
            // `Z_25TRUSTEDCLIENTS_…` on `Z_25TRUSTEDBYCLIENTS`, in the column order it had then).
            let shapes = Set(mine.indexes.map(\.shape))
            let leftovers = theirIndexes.filter { index in
                index.table.hasPrefix("Z_") && index.table.dropFirst(2).first?.isNumber == true
                    && !index.name.hasPrefix(index.table + "_") && !index.name.hasPrefix("sqlite_autoindex_")
            }
            XCTAssertEqual(
                theirIndexes.subtracting(mine.indexes).filter { !shapes.contains($0.shape) }.subtracting(leftovers), [],
                "\(store): indexes only in Core Data's")
        }
        let theirKeys = real.primaryKeys.filter { justified["Z_PRIMARYKEY \($0)"] == nil && !$0.hasPrefix("1600") }
        let ourKeys = mine.primaryKeys.filter { key in
            !real.primaryKeys.contains(where: {
                justified["Z_PRIMARYKEY \($0)"] != nil && $0.prefix(2) == key.prefix(2)
            })
        }
        XCTAssertEqual(ourKeys, theirKeys, "\(store): Z_PRIMARYKEY")
    }
}
