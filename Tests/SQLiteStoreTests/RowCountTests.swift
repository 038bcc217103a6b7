import Foundation
import GRDB
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

/// `rowCounts` counts the rows whose `Z_ENT` is each entity's number, whether a table holds one
/// entity (answered by one scan) or a hierarchy (grouped), and never rows with another number.
final class RowCountTests: XCTestCase {
    static let model = #"""
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="Item">
                <attribute name="name" optional="YES" attributeType="String"/>
            </entity>
            <entity name="Gadget" parentEntity="Item">
                <attribute name="watts" optional="YES" attributeType="Integer 32"/>
            </entity>
            <entity name="Author">
                <attribute name="name" optional="YES" attributeType="String"/>
            </entity>
        </model>
        """#

    private func store(_ rows: (Database, _ number: (String) throws -> Int) throws -> Void) throws -> String {
        let model = try ModelXMLReader.read(Data(Self.model.utf8), file: "Counts")
        let path = try scratchDirectory().appendingPathComponent("Counts.sqlite").path
        try PersistentStore.create(at: path, model: model).close()
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try rows(db) { name in
                try XCTUnwrap(
                    Int.fetchOne(db, sql: "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = ?", arguments: [name]))
            }
        }
        try queue.close()
        return path
    }

    private func counts(_ path: String) throws -> [String: Int] {
        try PersistentStore.open(at: path).rowCounts(
            model: try ModelXMLReader.read(Data(Self.model.utf8), file: "Counts"))
    }

    func testOneEntityTablesAndHierarchiesAreCountedByEntity() throws {
        let path = try store { db, number in
            for key in 1...5 {
                try db.execute(
                    sql: "INSERT INTO ZAUTHOR (Z_PK, Z_ENT, Z_OPT) VALUES (?, ?, 1)",
                    arguments: [key, try number("Author")])
            }
            for key in 1...3 {
                try db.execute(
                    sql: "INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT) VALUES (?, ?, 1)",
                    arguments: [key, try number("Item")])
            }
            for key in 4...7 {
                try db.execute(
                    sql: "INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT) VALUES (?, ?, 1)",
                    arguments: [key, try number("Gadget")])
            }
        }
        XCTAssertEqual(try counts(path), ["Author": 5, "Item": 3, "Gadget": 4])
    }

    func testRowsWithAnotherOrNoEntityNumberAreNotCounted() throws {
        let path = try store { db, number in
            for key in 1...4 {
                try db.execute(
                    sql: "INSERT INTO ZAUTHOR (Z_PK, Z_ENT, Z_OPT) VALUES (?, ?, 1)",
                    arguments: [key, try number("Author")])
            }
            // A damaged row without an entity number beside the four: one scan must not count it.
            try db.execute(sql: "INSERT INTO ZAUTHOR (Z_PK, Z_ENT, Z_OPT) VALUES (5, NULL, 1)")
            // And a row in a table read after ZAUTHOR that carries Author's number.
            try db.execute(
                sql: "INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT) VALUES (1, ?, 1)", arguments: [try number("Item")])
            try db.execute(
                sql: "INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT) VALUES (2, ?, 1)", arguments: [try number("Author")])
        }
        XCTAssertEqual(try counts(path), ["Author": 4, "Item": 1, "Gadget": 0])
    }

    func testTableCountsTakeATableOfOneEntityWholeAndAHierarchyByEntity() throws {
        let path = try store { db, number in
            for key in 1...4 {
                try db.execute(
                    sql: "INSERT INTO ZAUTHOR (Z_PK, Z_ENT, Z_OPT) VALUES (?, ?, 1)",
                    arguments: [key, try number("Author")])
            }
            // The damaged row: in Author's table, with Item's number.
            try db.execute(
                sql: "INSERT INTO ZAUTHOR (Z_PK, Z_ENT, Z_OPT) VALUES (5, ?, 1)", arguments: [try number("Item")])
            for key in 1...3 {
                try db.execute(
                    sql: "INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT) VALUES (?, ?, 1)",
                    arguments: [key, try number("Item")])
            }
            for key in 4...5 {
                try db.execute(
                    sql: "INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT) VALUES (?, ?, 1)",
                    arguments: [key, try number("Gadget")])
            }
        }
        let store = try PersistentStore.open(at: path)
        let model = try ModelXMLReader.read(Data(Self.model.utf8), file: "Counts")
        // Author's table holds only Author: every row in it is counted, the damaged one too.
        XCTAssertEqual(try store.tableRowCounts(model: model), ["Author": 5, "Item": 3, "Gadget": 2])
        XCTAssertEqual(try store.rowCounts(model: model), ["Author": 4, "Item": 3, "Gadget": 2])
    }
}
