import Foundation
import GRDB
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

/// A new empty store made by Chrysalis has the layout Core Data gave the real store of the same
/// model version: the same tables, columns (names and declared types), indexes and entity rows.
final class CreatedLayoutTests: XCTestCase {
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
        for (store, contents) in try Fixtures.verifiedPairs() {
            pairs.append((store, try ModelXMLReader.read(contentsOf: contents)))
        }
        // The two stores whose model exists only in their Z_MODELCACHE (built in code).
        for store in Fixtures.stores where store.lastPathComponent.hasPrefix("SampleModel2_") {
            pairs.append((store, try XCTUnwrap(try PersistentStore.open(at: try copyOfFixture(store).path).cachedModel())))
        }
        XCTAssertEqual(pairs.count, 20)
        for (store, model) in pairs {
            let real = try SchemaSnapshot.read(try copyOfFixture(store).path)
            let created = try scratchDirectory().appendingPathComponent("New.sqlite").path
            _ = try PersistentStore.create(at: created, model: model)
            let ours = try SchemaSnapshot.read(created)
            compare(real, ours, store: store.path)
            compared += 1
        }
        XCTAssertEqual(compared, 20)
    }

    /// Store → the self-referencing join tables it names after the other relationship of the pair
    /// (ours → theirs). Wire's 2.90 store was migrated forward by Core Data (framework 977), which
    /// renamed these; the store Core Data made fresh (2.3, framework 641) names them as Chrysalis does.
    private let selfReferencingNames: [String: [String: String]] = [
        "store2-90-0.wiredatabase": ["Z_25IGNOREDBYCLIENTS": "Z_25IGNOREDCLIENTS", "Z_25TRUSTEDBYCLIENTS": "Z_25TRUSTEDCLIENTS"],
    ]

    private func compare(_ real: SchemaSnapshot, _ ours: SchemaSnapshot, store: String) {
        let renamed = selfReferencingNames[URL(fileURLWithPath: store).lastPathComponent] ?? [:]
        var mine = ours
        for (from, to) in renamed {
            mine.tables[to] = mine.tables.removeValue(forKey: from)
            mine.indexes = Set(mine.indexes.map { index in
                guard index.table == from else { return index }
                // The index leads with the column of the relationship naming the table.
                let columns = index.columns.reversed().map { $0 }
                return SchemaSnapshot.Index(name: "\(to)_\(columns[0].prefix { $0 != " " })_INDEX", table: to, columns: columns, isUnique: false)
            })
        }
        for table in Set(real.tables.keys).union(mine.tables.keys) {
            guard let theirs = real.tables[table], let columns = mine.tables[table] else {
                if justified["table \(table)"] == nil { XCTFail("\(store): table \(table) only in \(real.tables[table] == nil ? "ours" : "Core Data's")") }
                continue
            }
            XCTAssertEqual(columns, theirs, "\(store): columns of \(table)")
        }
        let historyTables = Set(["ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING"])
        let theirIndexes = real.indexes.filter { !historyTables.contains($0.table) }
        if real.framework < 977 {
            // Before framework 977 Core Data named an `indexed` attribute's index
            // `ZTABLE_ZCOLUMN_INDEX` and a compound index `ZTABLE_ZA_ZB`; it has named them as
            // fetch indexes (`Z_Entity_a`) since. Chrysalis writes today's names; the columns agree.
            XCTAssertEqual(Set(mine.indexes.map(\.shape)), Set(theirIndexes.map(\.shape)), "\(store): indexes")
        } else {
            XCTAssertEqual(mine.indexes.subtracting(theirIndexes), [], "\(store): indexes only in ours")
            // Core Data's in-place migrations leave indexes under older names beside the new ones
            // (Wire 2.90: `Z_14ADDEDUSERS_Z_22ADDEDUSERS_INDEX` on `Z_16ADDEDUSERS`, from when the
            // entities were numbered 14 and 22): each extra one duplicates one Chrysalis writes.
            let shapes = Set(mine.indexes.map(\.shape))
            XCTAssertEqual(theirIndexes.subtracting(mine.indexes).filter { !shapes.contains($0.shape) }, [], "\(store): indexes only in Core Data's")
        }
        let theirKeys = real.primaryKeys.filter { justified["Z_PRIMARYKEY \($0)"] == nil && !$0.hasPrefix("1600") }
        let ourKeys = mine.primaryKeys.filter { key in !real.primaryKeys.contains(where: { justified["Z_PRIMARYKEY \($0)"] != nil && $0.prefix(2) == key.prefix(2) }) }
        XCTAssertEqual(ourKeys, theirKeys, "\(store): Z_PRIMARYKEY")
    }
}
