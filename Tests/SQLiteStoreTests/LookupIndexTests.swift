import Foundation
import GRDB
import ObjectModel
import TestSupport
import XCTest

@testable import SQLiteStore

/// A look-up by attribute on a store the migration writes is served by an index made on first
/// use, which also holds `Z_ENT`: the query's entity condition is checked in the index, and no
/// match costs a visit to its row (EXPLAIN QUERY PLAN says "COVERING INDEX").
final class LookupIndexTests: XCTestCase {
    func testALookUpIsAnsweredFromItsIndexAloneAndFindsOnlyTheEntityAsked() throws {
        let model = try ModelXMLReader.read(Data(ObjectRoundTripTests.model.utf8), file: "RoundTrip")
        let path = try scratchDirectory().appendingPathComponent("Lookups.sqlite").path
        let store = try PersistentStore.create(at: path, model: model)
        let layout = StoreLayout(model: model)
        // Items and Gadgets (a subentity) share a table, and a string.
        let (items, gadgets) = try store.writeObjects(layout) { writer -> ([ObjectID], [ObjectID]) in
            var items: [ObjectID] = [], gadgets: [ObjectID] = []
            for index in 0..<40 {
                items.append(try writer.insert("Item", ["string": .string("shared \(index % 4)")]))
                gadgets.append(
                    try writer.insert(
                        "Gadget", ["string": .string("shared \(index % 4)"), "watts": .integer(Int64(index))]))
            }
            return (items, gadgets)
        }
        try store.close()

        let reopened = try PersistentStore.open(at: path, mode: .readWrite)
        try reopened.withConnection { connection in
            let lookups = LookupIndexes(connection: connection, schema: "main")
            let reader = ObjectReader(connection: connection, layout: layout, path: path, lookups: lookups)
            let lastGadget = try reader.matchingObjectIDs(
                of: "Gadget", where: "string", equals: .string("shared 1"), from: .last, limit: 1)
            XCTAssertEqual(lastGadget, [gadgets[37]])
            let everyItem = try reader.matchingObjectIDs(of: "Item", where: "string", equals: .string("shared 1"))
            XCTAssertEqual(
                everyItem,
                zip(items, gadgets).enumerated().filter { $0.offset % 4 == 1 }.flatMap { [$0.element.0, $0.element.1] })

            let query = try reader.lookupQuery("Gadget", attribute: "string", end: .last, limit: 1)
            let plan = try connection.db.makeStatement(sql: "EXPLAIN QUERY PLAN " + query.sql)
            let details = try Row.fetchAll(plan, arguments: ["shared 1"]).map { $0["detail"] as String? ?? "" }
            XCTAssertTrue(details.contains { $0.contains("COVERING INDEX chrysalis_lookup_main_") }, "\(details)")
            XCTAssertEqual(lookups.madeNames.count, 1)
            try lookups.dropAll()
            XCTAssertEqual(
                try String.fetchAll(
                    connection.db, sql: "SELECT name FROM sqlite_master WHERE name LIKE 'chrysalis_lookup%'"), [])
        }
    }
}
