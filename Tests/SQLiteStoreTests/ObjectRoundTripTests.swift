import Foundation
import GRDB
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

/// Objects written through the rows API read back equal after the store is closed and reopened.
final class ObjectRoundTripTests: XCTestCase {
    static let model = #"""
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" userDefinedModelVersionIdentifier="rt">
            <entity name="Item">
                <attribute name="i16" optional="YES" attributeType="Integer 16"/>
                <attribute name="i32" optional="YES" attributeType="Integer 32"/>
                <attribute name="i64" optional="YES" attributeType="Integer 64"/>
                <attribute name="decimal" optional="YES" attributeType="Decimal"/>
                <attribute name="double" optional="YES" attributeType="Double"/>
                <attribute name="float" optional="YES" attributeType="Float"/>
                <attribute name="string" attributeType="String"/>
                <attribute name="flag" optional="YES" attributeType="Boolean"/>
                <attribute name="date" optional="YES" attributeType="Date"/>
                <attribute name="blob" optional="YES" attributeType="Binary"/>
                <attribute name="bigBlob" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
                <attribute name="id" optional="YES" attributeType="UUID"/>
                <attribute name="link" optional="YES" attributeType="URI"/>
                <attribute name="archived" optional="YES" attributeType="Transformable"/>
                <attribute name="scratch" optional="YES" transient="YES" attributeType="String"/>
                <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="items" inverseEntity="Person"/>
                <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="items" inverseEntity="Tag"/>
                <relationship name="steps" optional="YES" toMany="YES" ordered="YES" deletionRule="Cascade" destinationEntity="Step" inverseName="item" inverseEntity="Step"/>
            </entity>
            <entity name="Gadget" parentEntity="Item">
                <attribute name="watts" optional="YES" attributeType="Integer 32"/>
            </entity>
            <entity name="Person">
                <attribute name="name" attributeType="String"/>
                <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="owner" inverseEntity="Item"/>
                <relationship name="passport" optional="YES" maxCount="1" deletionRule="Cascade" destinationEntity="Passport" inverseName="holder" inverseEntity="Passport"/>
                <relationship name="favorite" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Item"/>
                <relationship name="playlists" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="listeners" inverseEntity="Tag"/>
            </entity>
            <entity name="Passport">
                <attribute name="number" attributeType="String"/>
                <relationship name="holder" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="passport" inverseEntity="Person"/>
            </entity>
            <entity name="Tag">
                <attribute name="label" attributeType="String"/>
                <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="tags" inverseEntity="Item"/>
                <relationship name="listeners" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Person" inverseName="playlists" inverseEntity="Person"/>
            </entity>
            <entity name="Step">
                <attribute name="text" attributeType="String"/>
                <relationship name="item" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Item" inverseName="steps" inverseEntity="Item"/>
            </entity>
        </model>
        """#

    func testEveryAttributeTypeAndRelationshipKindRoundTrips() throws {
        let model = try ModelXMLReader.read(Data(Self.model.utf8), file: "RoundTrip")
        let path = try scratchDirectory().appendingPathComponent("RoundTrip.sqlite").path
        let store = try PersistentStore.create(at: path, model: model)
        let layout = StoreLayout(model: model)
        let values: [String: StoreValue] = [
            "i16": .integer(-32768), "i32": .integer(2_147_483_647), "i64": .integer(Int64.min),
            "decimal": .decimal(Decimal(string: "10.11")!),
            "double": .double(3.141592653589793), "float": .double(0.5),
            "string": .string("Crème brûlée \"quoted\"; DROP TABLE Z_METADATA; --"),
            "flag": .bool(true), "date": .date(Date(timeIntervalSinceReferenceDate: 464441952.529884)),
            "blob": .data(Data([0, 1, 2, 255])),
            "bigBlob": .data(Data(repeating: 7, count: 3)),
            "id": .uuid(UUID(uuidString: "30084A1C-76CF-4976-8312-8E8EFCF6F510")!),
            "link": .uri(URL(string: "x-coredata://store/Item/p1")!), "archived": .data(Data("bplist00".utf8)),
        ]
        let ids = try store.writeObjects(layout) { writer -> [String: ObjectID] in
            let item = try writer.insert("Item", values)
            let gadget = try writer.insert(
                "Gadget", ["string": .string("lamp"), "watts": .integer(60), "flag": .bool(false)])
            let ada = try writer.insert("Person", ["name": .string("Ada")])
            let passport = try writer.insert("Passport", ["number": .string("X1")])
            // Empty text and bytes are values, not NULL: bound with a length, never a null pointer.
            let empty = try writer.insert("Passport", ["number": .string("")])
            let emptyBlob = try writer.insert("Item", ["string": .string("plain"), "blob": .data(Data())])
            let tags = try ["red", "blue", "green"].map { try writer.insert("Tag", ["label": .string($0)]) }
            let steps = try ["one", "two", "three"].map { try writer.insert("Step", ["text": .string($0)]) }
            try writer.relate(item, "owner", to: [ada])
            try writer.relate(ada, "items", to: [gadget, item])
            try writer.relate(ada, "passport", to: [passport])
            try writer.relate(ada, "favorite", to: [gadget])
            try writer.relate(item, "tags", to: [tags[0], tags[2]])
            try writer.relate(tags[1], "items", to: [gadget])
            try writer.relate(item, "steps", to: [steps[2], steps[0], steps[1]])
            try writer.relate(ada, "playlists", to: [tags[2], tags[0], tags[1]])
            try writer.update(gadget, ["watts": .integer(75)])
            return [
                "item": item, "gadget": gadget, "ada": ada, "passport": passport, "red": tags[0], "blue": tags[1],
                "green": tags[2], "one": steps[0], "two": steps[1], "three": steps[2], "empty": empty,
                "emptyBlob": emptyBlob,
            ]
        }

        let reopened = try PersistentStore.open(at: path)
        try reopened.readObjects(try reopened.layout(for: model)) { reader in
            let item = try XCTUnwrap(try reader.object(ids["item"]!))
            XCTAssertEqual(item.entity, "Item")
            for (name, value) in values { XCTAssertEqual(item.values[name], value, name) }
            XCTAssertNil(item.values["scratch"], "transient attributes are not stored")
            XCTAssertEqual(item.toOne["owner"], ids["ada"])
            let gadget = try XCTUnwrap(try reader.object(ids["gadget"]!))
            XCTAssertEqual(gadget.values["watts"], .integer(75))
            XCTAssertEqual(gadget.version, 2, "Z_OPT counts the update")
            XCTAssertEqual(gadget.values["i16"], .null)
            XCTAssertEqual(
                try reader.destinations(of: ids["ada"]!, "items"),
                [ids["item"]!, ids["gadget"]!].sorted { $0.primaryKey < $1.primaryKey })
            XCTAssertEqual(try reader.destinations(of: ids["ada"]!, "favorite"), [ids["gadget"]!])
            XCTAssertEqual(
                try reader.destinations(of: ids["passport"]!, "holder"), [ids["ada"]!],
                "one-to-one is set on both sides")
            XCTAssertEqual(try reader.destinations(of: ids["item"]!, "tags"), [ids["red"]!, ids["green"]!])
            XCTAssertEqual(
                try reader.destinations(of: ids["red"]!, "items"), [ids["item"]!], "many-to-many reads from both sides")
            XCTAssertEqual(try reader.destinations(of: ids["blue"]!, "items"), [ids["gadget"]!])
            XCTAssertEqual(
                try reader.destinations(of: ids["item"]!, "steps"), [ids["three"]!, ids["one"]!, ids["two"]!],
                "ordered to-many keeps its order")
            XCTAssertEqual(
                try reader.destinations(of: ids["ada"]!, "playlists"), [ids["green"]!, ids["red"]!, ids["blue"]!],
                "ordered many-to-many keeps its order")
            XCTAssertEqual(try reader.object(ids["empty"]!)?.values["number"], .string(""))
            XCTAssertEqual(try reader.object(ids["emptyBlob"]!)?.values["blob"], .data(Data()))
            XCTAssertEqual(try reader.count(of: "Item"), 3)
            XCTAssertEqual(try reader.count(of: "Item", includingSubentities: false), 2)
            var seen: [String] = []
            try reader.forEachObject(of: "Item") { seen.append($0.entity) }
            XCTAssertEqual(seen, ["Item", "Gadget", "Item"])
        }
        // Keys come from Z_PRIMARYKEY.Z_MAX, as Core Data allocates them.
        let maxima = try DatabaseQueue(path: path).read { db in
            try Row.fetchAll(db, sql: "SELECT Z_NAME, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT").map {
                "\($0[0] as String)=\($0[1] as Int)"
            }
        }
        XCTAssertEqual(maxima, ["Item=3", "Gadget=0", "Passport=2", "Person=1", "Step=3", "Tag=3"])
        XCTAssertEqual(try reopened.metadata().versionHashes, VersionHash.entityHashes(of: model))
    }

    /// A to-one given at insert (how a migration folds a policy-made instance's to-ones into
    /// its insert) reads back as if related afterwards, subentity number included.
    func testAToOneGivenAtInsertReadsBackWithItsEntity() throws {
        let model = try ModelXMLReader.read(Data(Self.model.utf8), file: "RoundTrip")
        let path = try scratchDirectory().appendingPathComponent("ToOne.sqlite").path
        let store = try PersistentStore.create(at: path, model: model)
        let layout = StoreLayout(model: model)
        let (gadget, step, loose) = try store.writeObjects(layout) { writer in
            let gadget = try writer.insert("Gadget", ["string": .string("lamp")])
            return (
                gadget, try writer.insert("Step", ["text": .string("one")], toOne: ["item": gadget]),
                try writer.insert("Step", ["text": .string("two")])
            )
        }
        XCTAssertNotEqual(
            gadget.entityNumber, layout.numbering.number(of: "Item"),
            "the destination is a subentity, so its number is stored too")
        try store.readObjects(layout) { reader in
            XCTAssertEqual(try reader.object(step)?.toOne["item"], gadget)
            XCTAssertEqual(try reader.object(step)?.values["text"], .string("one"))
            XCTAssertNil(try reader.object(loose)?.toOne["item"])
            XCTAssertEqual(try reader.destinations(of: gadget, "steps"), [step])
        }
        do {
            _ = try store.writeObjects(layout) {
                try $0.insert("Step", ["text": .string("x")], toOne: ["owner": gadget])
            }
            XCTFail("Step has no to-one owner")
        } catch let error as StoreError {
            XCTAssertEqual(error.kind, .unknownProperty)
            XCTAssertTrue(error.description.contains("entity Step has no to-one relationship owner"), error.description)
        }
    }

    func testWritesAreCheckedAgainstTheModel() throws {
        let model = try ModelXMLReader.read(Data(Self.model.utf8), file: "RoundTrip")
        let path = try scratchDirectory().appendingPathComponent("Checked.sqlite").path
        let store = try PersistentStore.create(at: path, model: model)
        let layout = StoreLayout(model: model)
        func failure(_ body: (ObjectWriter) throws -> Void) -> StoreError? {
            do { try store.writeObjects(layout, body); return nil } catch { return error as? StoreError }
        }
        XCTAssertEqual(failure { try $0.insert("Widget") }?.kind, .unknownEntity)
        XCTAssertEqual(failure { try $0.insert("Tag", ["colour": .string("x")]) }?.kind, .unknownProperty)
        XCTAssertEqual(
            failure { try $0.insert("Tag", ["label": .integer(3)]) }?.description.contains(
                "Tag.label is String and cannot hold"), true)
        XCTAssertEqual(
            failure { try $0.insert("Tag", ["items": .null]) }?.problem, "Tag.items is a relationship, not an attribute"
        )
        XCTAssertEqual(
            failure { try $0.insert("Tag", ["label": .null]) }?.problem, "Tag.label is required but was given no value")
        XCTAssertEqual(
            failure { writer in
                let tag = try writer.insert("Tag", ["label": .string("a")])
                try writer.relate(tag, "items", to: [tag])
            }?.kind, .badValue)
        // SQLite's own refusals (here a key taken behind the writer's back) come back as errors
        // with SQLite's message.
        XCTAssertThrowsError(
            try store.withConnection { connection in
                try connection.inTransaction {
                    let writer = ObjectWriter(connection: connection, layout: layout, path: path)
                    try writer.insert("Tag", ["label": .string("a")])
                    try connection.execute(SQLStatement("INSERT INTO ZTAG (Z_PK) VALUES (2)"))
                    try writer.insert("Tag", ["label": .string("b")])
                }
            }
        ) { error in
            XCTAssertTrue("\(error)".contains("UNIQUE constraint failed: ZTAG.Z_PK"), "\(error)")
        }
        // Each failed transaction rolled back: nothing was written.
        XCTAssertEqual(try store.readObjects(layout) { try $0.count(of: "Tag") }, 0)
    }
}
