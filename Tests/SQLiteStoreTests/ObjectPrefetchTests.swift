import Foundation
import GRDB
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

/// `ObjectPrefetch` hands over exactly what reading the table in `Z_PK` order gives, in batches of
/// the asked size, ends with nil, passes on the reader's errors, and lets go of the store when
/// stopped early.
final class ObjectPrefetchTests: XCTestCase {
    private var model: ManagedObjectModel!

    override func setUpWithError() throws {
        model = try ModelXMLReader.read(Data(RowCountTests.model.utf8), file: "Counts")
    }

    /// A store with `items` Items and `gadgets` Gadgets (a subentity, same table) interleaved by key.
    private func store(items: Int, gadgets: Int) throws -> PersistentStore {
        let path = try scratchDirectory().appendingPathComponent("Prefetch.sqlite").path
        try PersistentStore.create(at: path, model: model).close()
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            let item = try XCTUnwrap(Int.fetchOne(db, sql: "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Item'"))
            let gadget = try XCTUnwrap(Int.fetchOne(db, sql: "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Gadget'"))
            var numbers = Array(repeating: item, count: items) + Array(repeating: gadget, count: gadgets)
            numbers.shuffle()
            for (offset, number) in numbers.enumerated() {
                try db.execute(
                    sql: "INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, ?, 1, ?)",
                    arguments: [offset + 1, number, "name \(offset + 1)"])
            }
        }
        try queue.close()
        return try PersistentStore.open(at: path)
    }

    /// Every batch `prefetch` hands over, until nil.
    private func drain(_ prefetch: ObjectPrefetch) throws -> [[StoredObject]] {
        var batches: [[StoredObject]] = []
        while let batch = try prefetch.next() { batches.append(batch.objects) }
        return batches
    }

    private func readDirectly(_ store: PersistentStore, _ entity: String, includingSubentities: Bool) throws
        -> [StoredObject]
    {
        let layout = try store.layout(for: model)
        return try store.withReadConnection { connection in
            var objects: [StoredObject] = []
            try ObjectReader(connection: connection, layout: layout, path: store.path).forEachObject(
                of: entity, includingSubentities: includingSubentities
            ) {
                objects.append($0)
            }
            return objects
        }
    }

    func testBatchesHoldWhatTheTableHoldsInKeyOrder() throws {
        let store = try store(items: 7, gadgets: 5)
        for includingSubentities in [false, true] {
            let prefetch = ObjectPrefetch(
                store: store, layout: try store.layout(for: model), entity: "Item",
                includingSubentities: includingSubentities, batchSize: 3)
            let batches = try drain(prefetch)
            prefetch.stop()
            let expected = try readDirectly(store, "Item", includingSubentities: includingSubentities)
            XCTAssertEqual(expected.count, includingSubentities ? 12 : 7)
            XCTAssertEqual(batches.map(\.count), includingSubentities ? [3, 3, 3, 3] : [3, 3, 1])
            XCTAssertEqual(batches.flatMap { $0 }, expected)
            XCTAssertEqual(batches.flatMap { $0 }.map(\.id.primaryKey), expected.map(\.id.primaryKey).sorted())
        }
    }

    func testAnEmptyTableEndsAtOnceAndNextStaysNil() throws {
        let store = try store(items: 0, gadgets: 2)
        let prefetch = ObjectPrefetch(
            store: store, layout: try store.layout(for: model), entity: "Item", includingSubentities: false,
            batchSize: 10)
        defer { prefetch.stop() }
        XCTAssertNil(try prefetch.next())
        XCTAssertNil(try prefetch.next())
    }

    func testTheReadersErrorReachesTheCallerNamingEntityAndFile() throws {
        let store = try store(items: 2, gadgets: 0)
        let prefetch = ObjectPrefetch(
            store: store, layout: try store.layout(for: model), entity: "Widget", batchSize: 10)
        defer { prefetch.stop() }
        XCTAssertThrowsError(try prefetch.next()) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("Widget") && text.contains(store.path), text)
        }
    }

    func testStoppingEarlyLetsGoOfTheStore() throws {
        let store = try store(items: 50, gadgets: 0)
        let prefetch = ObjectPrefetch(store: store, layout: try store.layout(for: model), entity: "Item", batchSize: 4)
        XCTAssertEqual(try prefetch.next()?.objects.count, 4)
        prefetch.stop()
        prefetch.stop()
        // The reader's transaction is over: the store's one connection is free for another read,
        // and closing it does not fail on a statement still running.
        XCTAssertEqual(try store.rowCounts(model: model)["Item"], 50)
        XCTAssertNoThrow(try store.close())
    }
}
