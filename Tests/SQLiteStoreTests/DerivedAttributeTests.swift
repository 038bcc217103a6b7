import Foundation
import GRDB
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

/// Core Data's derived-attribute triggers, predicted from a model and compared text for text
/// with every store in the fixtures that has any (CoreDataPlus `SampleModel2_V*`, whose model
/// exists only in its `Z_MODELCACHE`).
final class DerivedAttributeTests: FixtureTestCase {
    /// Every fixture store with a `Z_DA_` trigger, found by reading them all.
    private func storesWithTriggers() throws -> [URL] {
        try Fixtures.stores.filter { store in
            let copy = try copyOfFixture(store)
            let queue = try DatabaseQueue(
                path: copy.path,
                configuration: {
                    var c = Configuration(); c.readonly = true; return c
                }())
            defer { try? queue.close() }
            return try queue.read { db in
                try Int.fetchOne(
                    db,
                    sql:
                        "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'Z\\_DA\\_%' ESCAPE '\\'"
                ) ?? 0
            } > 0
        }
    }

    func testTriggersAreWrittenAsCoreDataWroteThem() throws {
        let stores = try storesWithTriggers()
        XCTAssertFalse(stores.isEmpty, "the fixtures hold stores with derived attributes")
        for store in stores {
            let copy = try copyOfFixture(store)
            let opened = try PersistentStore.open(at: copy.path)
            let model = try XCTUnwrap(
                try opened.cachedModel(), "\(store.lastPathComponent) has its model in Z_MODELCACHE")
            let layout = try opened.layout(for: model)
            try opened.close()
            let written = try DatabaseQueue(path: copy.path).read { db in
                try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
                    .map { ($0[0] as String, $0[1] as String) }
            }
            let predicted = DerivedAttributeTriggers(layout: layout)
            XCTAssertEqual(predicted.unwritten, [], store.lastPathComponent)
            let ours = zip(
                predicted.derivations.flatMap(\.triggerNames), predicted.derivations.flatMap(\.triggers).map(\.sql)
            ).sorted { $0.0 < $1.0 }
            XCTAssertEqual(ours.map(\.0), written.map(\.0), "\(store.lastPathComponent): trigger names")
            for (mine, theirs) in zip(ours, written) {
                XCTAssertEqual(mine.1, theirs.1, "\(store.lastPathComponent): \(theirs.0)")
            }
        }
    }

    /// The backfill computes what the triggers keep: every book's page count, as the store holds it.
    func testTheBackfillComputesTheValuesCoreDataHolds() throws {
        for store in try storesWithTriggers() {
            let copy = try copyOfFixture(store)
            let opened = try PersistentStore.open(at: copy.path)
            let model = try XCTUnwrap(try opened.cachedModel())
            let layout = try opened.layout(for: model)
            try opened.close()
            let derivations = DerivedAttributeTriggers(layout: layout).derivations
            XCTAssertFalse(derivations.isEmpty, store.lastPathComponent)
            let queue = try DatabaseQueue(path: copy.path)
            for derivation in derivations {
                let column = try XCTUnwrap(layout.column(entity: derivation.entity, property: derivation.attribute))
                    .name
                let table = try XCTUnwrap(layout.table(for: derivation.entity)).name
                let before = try queue.read { db in
                    try Row.fetchAll(db, sql: "SELECT Z_PK, \(column) FROM \(table) ORDER BY Z_PK").map {
                        [$0[0] as Int64, $0[1] as Int64? ?? -1]
                    }
                }
                try queue.write { db in
                    try db.execute(sql: "DROP TRIGGER IF EXISTS \(derivation.triggerNames.last!)")
                    try db.execute(sql: "UPDATE \(table) SET \(column) = NULL")
                    try db.execute(sql: derivation.backfill.sql)
                }
                let after = try queue.read { db in
                    try Row.fetchAll(db, sql: "SELECT Z_PK, \(column) FROM \(table) ORDER BY Z_PK").map {
                        [$0[0] as Int64, $0[1] as Int64? ?? -1]
                    }
                }
                XCTAssertEqual(
                    after, before, "\(store.lastPathComponent): \(derivation.entity).\(derivation.attribute)")
                XCTAssertFalse(before.isEmpty)
            }
        }
    }
}
