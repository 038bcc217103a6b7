import Foundation
import GRDB
import MigrationEngine
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

/// A version named `name` whose model holds the entities in `body` (XML).
private func modelVersion(_ name: String, _ body: String) throws -> ModelBundle.Version {
    let model = try ModelXMLReader.read(
        Data(
            """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" userDefinedModelVersionIdentifier="\(name)">\(body)</model>
            """.utf8), file: name)
    return ModelBundle.Version(name: name, model: model)
}

/// Every change Core Data infers, each on a store with rows: migrated in place, the store has
/// exactly a fresh destination store's layout and the data the rule promises. And every change it
/// cannot infer: a clear error naming it, the store untouched.
final class InferenceRuleTests: XCTestCase {
    private func version(_ name: String, _ body: String) throws -> ModelBundle.Version { try modelVersion(name, body) }

    /// Migrates a v1 store filled by `seed` to v2 and returns its path, after checking the layout.
    @discardableResult
    private func migrate(
        _ v1: String, _ v2: String, seed: (ObjectWriter) throws -> Void, file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> String {
        let old = try version("v1", v1), new = try version("v2", v2)
        let path = try scratchDirectory().appendingPathComponent("Store.sqlite").path
        let store = try PersistentStore.create(at: path, model: old.model)
        try store.writeObjects(StoreLayout(model: old.model), seed)
        try store.close()
        _ = try InPlaceMigration.run(store: path, from: old, to: new)
        let fresh = try scratchDirectory().appendingPathComponent("Fresh.sqlite").path
        try PersistentStore.create(at: fresh, model: new.model).close()
        let (migrated, expected) = (try SchemaSnapshot.read(path), try SchemaSnapshot.read(fresh))
        XCTAssertEqual(migrated.tables, expected.tables, "layout equals a fresh v2 store", file: file, line: line)
        XCTAssertEqual(migrated.indexes, expected.indexes, file: file, line: line)
        XCTAssertEqual(migrated.primaryKeys, expected.primaryKeys, file: file, line: line)
        XCTAssertEqual(
            try PersistentStore.open(at: path).metadata().versionHashes, VersionHash.entityHashes(of: new.model),
            file: file, line: line)
        return path
    }

    private func values(_ path: String, _ sql: String) throws -> [String] {
        try rows(path, sql).map { $0.map(\.description).joined(separator: "|") }
    }

    private let note = #"<entity name="Note"><attribute name="text" optional="YES" attributeType="String"/></entity>"#

    func testAddAndRemoveAttribute() throws {
        let path = try migrate(
            #"<entity name="Note"><attribute name="text" optional="YES" attributeType="String"/><attribute name="old" optional="YES" attributeType="String"/></entity>"#,
            #"<entity name="Note"><attribute name="text" optional="YES" attributeType="String"/><attribute name="stars" optional="YES" attributeType="Integer 16" defaultValueString="3"/></entity>"#
        ) {
            try $0.insert("Note", ["text": .string("a"), "old": .string("gone")])
        }
        XCTAssertEqual(
            try values(path, "SELECT ztext, zstars FROM znote"), ["\"a\"|3"], "a new attribute gets its default")
    }

    func testOptionalityChanges() throws {
        let path = try migrate(
            #"<entity name="Note"><attribute name="text" attributeType="String"/><attribute name="rank" optional="YES" attributeType="Integer 32"/></entity>"#,
            #"<entity name="Note"><attribute name="text" optional="YES" attributeType="String"/><attribute name="rank" attributeType="Integer 32" defaultValueString="7"/></entity>"#
        ) {
            try $0.insert("Note", ["text": .string("a"), "rank": .integer(1)])
            try $0.insert("Note", ["text": .string("b")])
        }
        XCTAssertEqual(
            try values(path, "SELECT ztext, zrank FROM znote ORDER BY z_pk"), ["\"a\"|1", "\"b\"|7"],
            "empty values get the default")
    }

    func testAddRemoveAndRenameEntity() throws {
        let path = try migrate(
            note
                + #"<entity name="Draft"><attribute name="body" optional="YES" attributeType="String"/></entity><entity name="Old"/>"#,
            #"<entity name="Memo" elementID="Note"><attribute name="text" optional="YES" attributeType="String"/></entity><entity name="Draft"><attribute name="body" optional="YES" attributeType="String"/></entity><entity name="Tag"><attribute name="label" optional="YES" attributeType="String"/></entity>"#
        ) {
            try $0.insert("Note", ["text": .string("kept")])
            try $0.insert("Draft", ["body": .string("d")])
            try $0.insert("Old")
        }
        XCTAssertEqual(try values(path, "SELECT ztext FROM zmemo"), ["\"kept\""])
        XCTAssertEqual(try values(path, "SELECT zbody FROM zdraft"), ["\"d\""])
        XCTAssertEqual(try values(path, "SELECT count(*) FROM ztag"), ["0"])
    }

    func testRenamePropertyAndRelationship() throws {
        let path = try migrate(
            #"<entity name="Note"><attribute name="text" optional="YES" attributeType="String"/><relationship name="folder" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Folder" inverseName="notes" inverseEntity="Folder"/></entity><entity name="Folder"><relationship name="notes" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Note" inverseName="folder" inverseEntity="Note"/></entity>"#,
            #"<entity name="Note"><attribute name="body" optional="YES" attributeType="String" elementID="text"/><relationship name="parent" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Folder" inverseName="items" inverseEntity="Folder" elementID="folder"/></entity><entity name="Folder"><relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Note" inverseName="parent" inverseEntity="Note" elementID="notes"/></entity>"#
        ) { writer in
            let folder = try writer.insert("Folder")
            try writer.relate(try writer.insert("Note", ["text": .string("a")]), "folder", to: [folder])
        }
        XCTAssertEqual(try values(path, "SELECT zbody, zparent FROM znote"), ["\"a\"|1"])
    }

    func testAddAndRemoveRelationship() throws {
        let folder = #"<entity name="Folder"><attribute name="name" optional="YES" attributeType="String"/></entity>"#
        let path = try migrate(
            #"<entity name="Note"><attribute name="text" optional="YES" attributeType="String"/><relationship name="old" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Folder"/></entity>"#
                + folder,
            #"<entity name="Note"><attribute name="text" optional="YES" attributeType="String"/><relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Folder" inverseName="notes" inverseEntity="Folder"/></entity><entity name="Folder"><attribute name="name" optional="YES" attributeType="String"/><relationship name="notes" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Note" inverseName="tags" inverseEntity="Note"/></entity>"#
        ) { writer in
            try writer.relate(
                try writer.insert("Note", ["text": .string("a")]), "old", to: [try writer.insert("Folder")])
        }
        XCTAssertEqual(try values(path, "SELECT ztext FROM znote"), ["\"a\""])
    }

    private let author =
        #"<entity name="Author"><attribute name="name" optional="YES" attributeType="String"/>%@</entity>"#

    func testToOneBecomesToMany() throws {
        let v1 =
            #"<entity name="Book"><attribute name="title" optional="YES" attributeType="String"/><relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/></entity>"#
            + String(
                format: author,
                #"<relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>"#
            )
        let v2 =
            #"<entity name="Book"><attribute name="title" optional="YES" attributeType="String"/><relationship name="authors" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author" elementID="author"/></entity>"#
            + String(
                format: author,
                #"<relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="authors" inverseEntity="Book"/>"#
            )
        let path = try migrate(v1, v2) { writer in
            let kafka = try writer.insert("Author", ["name": .string("Kafka")])
            for title in ["The Trial", "The Castle"] {
                try writer.relate(try writer.insert("Book", ["title": .string(title)]), "author", to: [kafka])
            }
            try writer.insert("Book", ["title": .string("Anonymous")])
        }
        // Author(1) Book(2): Book.authors ↔ Author.books in Z_1BOOKS (Z_1AUTHORS, Z_2BOOKS).
        XCTAssertEqual(
            try values(
                path,
                "SELECT b.ztitle, a.zname FROM Z_1BOOKS j JOIN zbook b ON b.z_pk = j.Z_2BOOKS JOIN zauthor a ON a.z_pk = j.Z_1AUTHORS ORDER BY b.z_pk"
            ),
            ["\"The Trial\"|\"Kafka\"", "\"The Castle\"|\"Kafka\""])
    }

    func testUnorderedBecomesOrdered() throws {
        let v1 =
            #"<entity name="Book"><attribute name="title" optional="YES" attributeType="String"/><relationship name="authors" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/><relationship name="pages" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Page" inverseName="book" inverseEntity="Page"/></entity><entity name="Page"><attribute name="number" optional="YES" attributeType="Integer 32"/><relationship name="book" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Book" inverseName="pages" inverseEntity="Book"/></entity>"#
            + String(
                format: author,
                #"<relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="authors" inverseEntity="Book"/>"#
            )
        let v2 =
            #"<entity name="Book"><attribute name="title" optional="YES" attributeType="String"/><relationship name="authors" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/><relationship name="pages" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Page" inverseName="book" inverseEntity="Page"/></entity><entity name="Page"><attribute name="number" optional="YES" attributeType="Integer 32"/><relationship name="book" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Book" inverseName="pages" inverseEntity="Book"/></entity>"#
            + String(
                format: author,
                #"<relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="authors" inverseEntity="Book"/>"#
            )
        let path = try migrate(v1, v2) { writer in
            let author = try writer.insert("Author", ["name": .string("Gombrowicz")])
            let book = try writer.insert("Book", ["title": .string("Cosmos")])
            try writer.relate(book, "authors", to: [author])
            let pages = try (1...5).map { try writer.insert("Page", ["number": .integer(Int64($0))]) }
            let other = try writer.insert("Book", ["title": .string("Ferdydurke")])
            // Interleaved: each book's pages are numbered on their own, in key order.
            try writer.relate(book, "pages", to: [pages[0], pages[2], pages[4]])
            try writer.relate(other, "pages", to: [pages[1]])
            _ = try writer.insert("Page", ["number": .integer(6)])
        }
        XCTAssertEqual(
            try values(path, "SELECT znumber, Z_FOK_BOOK FROM zpage ORDER BY z_pk"),
            ["1|1024", "2|1024", "3|2048", "4|0", "5|3072", "6|0"],
            "unordered → ordered numbers each book's pages from 1024 in key order; pages in no book get 0, as before")
    }

    func testHierarchyChanges() throws {
        // v1: Vehicle ← Car(wheels), Boat separate. v2: new abstract parent Thing above Vehicle; wheels moves up to
        // Vehicle; a new child Truck under Car; Boat stays out. Also an entity moving out: Bike leaves Vehicle.
        let v1 =
            #"<entity name="Vehicle"><attribute name="name" optional="YES" attributeType="String"/></entity><entity name="Car" parentEntity="Vehicle"><attribute name="wheels" optional="YES" attributeType="Integer 16"/></entity><entity name="Bike" parentEntity="Vehicle"><attribute name="gears" optional="YES" attributeType="Integer 16"/></entity>"#
        let v2 =
            #"<entity name="Thing" isAbstract="YES"><attribute name="name" optional="YES" attributeType="String"/></entity><entity name="Vehicle" parentEntity="Thing"><attribute name="wheels" optional="YES" attributeType="Integer 16"/></entity><entity name="Car" parentEntity="Vehicle"/><entity name="Truck" parentEntity="Car"><attribute name="load" optional="YES" attributeType="Double"/></entity><entity name="Bike"><attribute name="name" optional="YES" attributeType="String"/><attribute name="gears" optional="YES" attributeType="Integer 16"/></entity>"#
        let path = try migrate(v1, v2) { writer in
            try writer.insert("Vehicle", ["name": .string("cart")])
            try writer.insert("Car", ["name": .string("mini"), "wheels": .integer(4)])
            try writer.insert("Bike", ["name": .string("fixie"), "gears": .integer(1)])
        }
        // Bike(1) Thing(2) Vehicle(3) Car(4) Truck(5).
        XCTAssertEqual(
            try values(path, "SELECT Z_ENT, zname, zwheels FROM zthing ORDER BY z_pk"),
            ["3|\"cart\"|NULL", "4|\"mini\"|4"])
        XCTAssertEqual(
            try values(path, "SELECT Z_PK, Z_ENT, zname, zgears FROM zbike"), ["3|1|\"fixie\"|1"],
            "Bike keeps its key in its own table")
    }

    func testPropertyMovesDown() throws {
        let v1 =
            #"<entity name="Shape"><attribute name="radius" optional="YES" attributeType="Double"/></entity><entity name="Circle" parentEntity="Shape"/><entity name="Square" parentEntity="Shape"/>"#
        let v2 =
            #"<entity name="Shape"/><entity name="Circle" parentEntity="Shape"><attribute name="radius" optional="YES" attributeType="Double"/></entity><entity name="Square" parentEntity="Shape"/>"#
        let path = try migrate(v1, v2) { writer in
            try writer.insert("Circle", ["radius": .double(2)])
            try writer.insert("Square", ["radius": .double(9)])
        }
        XCTAssertEqual(
            try values(path, "SELECT Z_ENT, zradius FROM zshape ORDER BY z_pk"), ["2|2.0", "3|NULL"],
            "a square has no radius any more")
    }

    func testChangesThatCannotBeInferred() throws {
        let cases: [(String, String, String)] = [
            (
                note,
                #"<entity name="Note"><attribute name="text" optional="YES" attributeType="Integer 32"/></entity>"#,
                "Note.text changes type from String to Integer 32"
            ),
            (
                note, #"<entity name="Note"><attribute name="text" optional="YES" attributeType="Date"/></entity>"#,
                "Note.text changes type from String to Date"
            ),
            (
                note
                    + #"<entity name="Tag"><relationship name="notes" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Note"/></entity>"#,
                note
                    + #"<entity name="Tag"><relationship name="notes" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Note"/></entity>"#,
                "Tag.notes changes from to-many to to-one"
            ),
            (
                #"<entity name="Note"><attribute name="text" optional="YES" attributeType="String"/><attribute name="title" optional="YES" attributeType="String" elementID="text"/></entity>"#,
                note, "Note: two properties share the renaming identifier text"
            ),
            (
                #"<entity name="Note"><attribute name="text" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/></entity>"#,
                #"<entity name="Note"><attribute name="text" optional="YES" attributeType="Binary"/></entity>"#,
                "Note.text stops allowing external storage"
            ),
            (
                note + #"<entity name="Tag"><attribute name="label" optional="YES" attributeType="String"/></entity>"#,
                #"<entity name="Note"><attribute name="text" optional="YES" attributeType="String"/></entity><entity name="Tag" parentEntity="Note"><attribute name="label" optional="YES" attributeType="String"/></entity>"#,
                "hierarchy Note merges the old hierarchies Note and Tag"
            ),
        ]
        for (v1, v2, expected) in cases {
            let old = try version("v1", v1), new = try version("v2", v2)
            XCTAssertFalse(InferredMapping(from: old, to: new).isInferable, "answerable without a store: \(expected)")
            let path = try scratchDirectory().appendingPathComponent("Store.sqlite").path
            let store = try PersistentStore.create(at: path, model: old.model)
            _ = try store.writeObjects(StoreLayout(model: old.model)) { try $0.insert("Note") }
            try store.close()
            let before = try digest(path)
            XCTAssertThrowsError(try InPlaceMigration.run(store: path, from: old, to: new)) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(error)")
                XCTAssertTrue(
                    "\(error)".contains("needs a mapping model") || "\(error)".contains("write a mapping model"),
                    "\(error)")
            }
            XCTAssertEqual(try digest(path), before)
            XCTAssertEqual(try directoryListing(path), ["Store.sqlite"])
        }
    }

    /// Core Data infers a required value that existing rows may lack, then checks the rows
    /// (error 134110): a store with such a row is refused before anything is written; a store
    /// without one migrates.
    func testRequiredValuesAreCheckedAgainstTheRows() throws {
        // Each case: the new version, the row that breaks it, the row that does not (nil: no row).
        let cases: [(v2: String, blocking: [String: StoreValue], passing: [String: StoreValue]?, expected: String)] = [
            (
                #"<entity name="Note"><attribute name="text" attributeType="String"/></entity>"#, [:],
                ["text": .string("x")],
                "Note.text becomes required and has no default value (1 row lacks it)"
            ),
            (
                #"<entity name="Note"><attribute name="text" optional="YES" attributeType="String"/><attribute name="id" attributeType="UUID"/></entity>"#,
                ["text": .string("x")], nil, "Note.id is new and required but has no default value (1 row lacks it)"
            ),
        ]
        for (v2, blocking, passing, expected) in cases {
            let old = try version("v1", note), new = try version("v2", v2)
            XCTAssertTrue(
                InferredMapping(from: old, to: new).isInferable, "inferred, as Core Data infers it: \(expected)")
            let path = try scratchDirectory().appendingPathComponent("Store.sqlite").path
            let store = try PersistentStore.create(at: path, model: old.model)
            _ = try store.writeObjects(StoreLayout(model: old.model)) { try $0.insert("Note", blocking) }
            try store.close()
            let before = try digest(path)
            XCTAssertThrowsError(try InPlaceMigration.run(store: path, from: old, to: new)) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(error)")
                XCTAssertTrue("\(error)".contains("error 134110"), "\(error)")
            }
            XCTAssertEqual(try digest(path), before, "refused before anything is written")
            XCTAssertEqual(try directoryListing(path), ["Store.sqlite"])
            // The same change on a store whose rows have the value (or no row at all) migrates.
            let good = try scratchDirectory().appendingPathComponent("Good.sqlite").path
            let goodStore = try PersistentStore.create(at: good, model: old.model)
            if let passing {
                _ = try goodStore.writeObjects(StoreLayout(model: old.model)) { try $0.insert("Note", passing) }
            }
            try goodStore.close()
            XCTAssertNoThrow(try InPlaceMigration.run(store: good, from: old, to: new))
        }
    }

    /// T1: among the numeric types and Boolean a type change is inferred, renamed or not, and the
    /// values carry over: in place when the column type stays, through a rebuild (SQLite's
    /// affinity converting) when it changes.
    func testNumericTypeChangesCarryTheirValues() throws {
        let v1 =
            #"<entity name="Chat"><attribute name="isSilenced" attributeType="Boolean" defaultValueString="NO" elementID="mutedStatus"/><attribute name="rank" optional="YES" attributeType="Integer 16"/><attribute name="score" optional="YES" attributeType="Double"/></entity>"#
        let v2 =
            #"<entity name="Chat"><attribute name="mutedStatus" attributeType="Integer 32" defaultValueString="NO" elementID="mutedStatus"/><attribute name="rank" optional="YES" attributeType="Double"/><attribute name="score" optional="YES" attributeType="Integer 64"/></entity>"#
        let path = try migrate(v1, v2) { writer in
            try writer.insert("Chat", ["isSilenced": .bool(true), "rank": .integer(3), "score": .double(2.5)])
            try writer.insert("Chat", ["isSilenced": .bool(false), "score": .double(7)])
        }
        XCTAssertEqual(
            try values(path, "SELECT zmutedstatus, zrank, typeof(zrank), zscore FROM zchat ORDER BY z_pk"),
            ["1|3.0|\"real\"|2.5", "0|NULL|\"null\"|7"],
            "values carry over; Integer 64 keeps 2.5 as SQLite keeps it, and 7.0 becomes 7")
    }

    /// R2/R3: properties pair by renaming identifier alone, an unset one being the name. A chain
    /// kept on the original name pairs v1 with v3; one pointing at the previous version's name
    /// pairs nothing, and the value is dropped, as Core Data drops it.
    func testRenamingIdentifiersPairByIdentifierOnly() throws {
        let v1 =
            #"<entity name="Note"><attribute name="color" optional="YES" attributeType="String"/><attribute name="size" optional="YES" attributeType="String"/></entity>"#
        // v2 named them paintColor (identifier color) and volume (identifier size); v3 renames
        // again, keeping `color` but pointing the other at v2's name.
        let v3 =
            #"<entity name="Note"><attribute name="primaryColor" optional="YES" attributeType="String" elementID="color"/><attribute name="capacity" optional="YES" attributeType="String" elementID="volume"/></entity>"#
        let path = try migrate(v1, v3) { try $0.insert("Note", ["color": .string("red"), "size": .string("big")]) }
        XCTAssertEqual(try values(path, "SELECT zprimarycolor, zcapacity FROM znote"), ["\"red\"|NULL"])
        let inference = InferredMapping(from: try version("v1", v1), to: try version("v3", v3))
        XCTAssertEqual(inference.propertySources["Note"], ["primaryColor": "color"])
    }

    /// R5: an attribute and a relationship never pair, whatever their identifiers: the old one is
    /// dropped and the new one added.
    func testAnAttributeNeverBecomesARelationship() throws {
        let v1 =
            #"<entity name="Note"><attribute name="folder" optional="YES" attributeType="String"/></entity><entity name="Folder"/>"#
        let v2 =
            #"<entity name="Note"><relationship name="folder" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Folder"/></entity><entity name="Folder"/>"#
        let path = try migrate(v1, v2) { try $0.insert("Note", ["folder": .string("Inbox")]) }
        XCTAssertEqual(try values(path, "SELECT zfolder FROM znote"), ["NULL"])
    }

    /// P2: a new to-many that is not optional but has no minimum count asks nothing of existing
    /// rows (Wire 1.27's `UserClient.ignoredClients`); external storage may be turned on.
    func testNewRequiredToManyWithoutMinimumAndExternalStorageOn() throws {
        let v1 = #"<entity name="Client"><attribute name="blob" optional="YES" attributeType="Binary"/></entity>"#
        let v2 =
            #"<entity name="Client"><attribute name="blob" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/><relationship name="ignored" toMany="YES" deletionRule="Nullify" destinationEntity="Client" inverseName="ignoredBy" inverseEntity="Client"/><relationship name="ignoredBy" toMany="YES" deletionRule="Nullify" destinationEntity="Client" inverseName="ignored" inverseEntity="Client"/></entity>"#
        let path = try migrate(v1, v2) {
            try $0.insert("Client", ["blob": .data(Data([0xAB, 0xCD]))])
            try $0.insert("Client", ["blob": .data(Data([0x00, 0xFF, 0xC3, 0x28]))])
        }
        XCTAssertEqual(
            try values(path, "SELECT hex(zblob) FROM zclient ORDER BY Z_PK"), ["\"01ABCD\"", "\"0100FFC328\""],
            "held in the row: Core Data's tag byte 1, then the bytes")
        // `X'01' || blob` is text in SQLite; a binary value must stay a blob (Threema V25 → V26).
        XCTAssertEqual(try values(path, "SELECT DISTINCT typeof(zblob) FROM zclient"), ["\"blob\""])
    }
}

/// P10 and P11: a relationship whose destination entity changes, and a to-many that becomes the
/// inverse of a to-one. Core Data infers both; what the links become is said in the plan.
final class ChangedDestinationTests: FixtureTestCase {
    private func version(_ name: String, _ body: String) throws -> ModelBundle.Version { try modelVersion(name, body) }

    private let revision =
        #"<entity name="Revision"><attribute name="title" optional="YES" attributeType="String"/><relationship name="diffs" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="%@" inverseName="revision" inverseEntity="%@"/></entity>"#
    private let value =
        #"<entity name="%@"><attribute name="text" optional="YES" attributeType="String"/><relationship name="revision" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Revision" inverseName="diffs" inverseEntity="Revision"/></entity>"#

    private func store(_ version: ModelBundle.Version, _ seed: (ObjectWriter) throws -> Void) throws -> String {
        let path = try scratchDirectory().appendingPathComponent("Store.sqlite").path
        let store = try PersistentStore.create(at: path, model: version.model)
        try store.writeObjects(StoreLayout(model: version.model), seed)
        try store.close()
        return path
    }

    /// WordPress 83: `RevisionDiff*Value` renamed `Diff*Value` without renaming identifiers. The
    /// old destination is removed, so the links have nothing to become: inferred, links dropped
    /// and named; `--strict-destinations` refuses it.
    func testADestinationWhoseOldEntityIsRemovedDropsTheLinks() throws {
        let v1 = try version(
            "v1",
            String(format: revision, "RevisionDiffValue", "RevisionDiffValue")
                + String(format: value, "RevisionDiffValue"))
        let v2 = try version(
            "v2", String(format: revision, "DiffValue", "DiffValue") + String(format: value, "DiffValue"))
        let inference = InferredMapping(from: v1, to: v2)
        XCTAssertTrue(inference.isInferable, "\(inference.blockers)")
        XCTAssertTrue(
            inference.changes.contains {
                $0.description
                    == "Revision.diffs now points to DiffValue and its old destination RevisionDiffValue is removed: its links are dropped"
            },
            "\(inference.changes)")
        XCTAssertFalse(
            InferredMapping(from: v1, to: v2, checks: .destinationChanges).isInferable, "stricter by choice, on request"
        )

        let path = try store(v1) { writer in
            let revision = try writer.insert("Revision", ["title": .string("r")])
            try writer.insert("RevisionDiffValue", ["text": .string("d")], toOne: ["revision": revision])
        }
        let bundle = ModelBundle(name: "Diffs", versions: [v1, v2], currentVersionName: "v2")
        let plan = try MigrationPlan.make(store: path, bundle: bundle)
        XCTAssertTrue(
            plan.steps[0].findings.contains("data dropped: entity RevisionDiffValue removed (1 row)"),
            "\(plan.steps[0].findings)")
        XCTAssertTrue(
            plan.steps[0].findings.contains {
                $0.hasPrefix("data dropped: Revision.diffs now points to DiffValue")
                    && $0.hasSuffix("(1 object with links)")
            },
            "\(plan.steps[0].findings)")
        let dropped = try XCTUnwrap(plan.steps[0].changes.first { $0.kind == .linksDropped })
        XCTAssertEqual([dropped.entity, dropped.property], ["Revision", "diffs"])
        XCTAssertEqual(dropped.rows, 1)
        XCTAssertThrowsError(try MigrationPlan.make(store: path, bundle: bundle, checks: .destinationChanges)) {
            error in
            XCTAssertTrue("\(error)".contains("refused by --strict-destinations"), "\(error)")
        }
        _ = try MigrationRunner.run(plan, store: path, options: MigrationOptions(), keepBackup: false)
        XCTAssertEqual(
            try rows(path, "SELECT count(*) FROM ZREVISION").first?.first.flatMap { Int64.fromDatabaseValue($0) }, 1)
        XCTAssertEqual(
            try rows(path, "SELECT count(*) FROM ZDIFFVALUE").first?.first.flatMap { Int64.fromDatabaseValue($0) }, 0,
            "the new entity starts empty")
    }

    /// Links to objects that become another entity than the new destination: Core Data cannot
    /// infer the mapping, whatever the store holds (WordPress's own test: an empty store at 19 is
    /// refused at 21), so the step needs a mapping model, for a store without links too.
    func testLinksToObjectsThatBecomeAnotherEntityNeedAMappingModel() throws {
        let entities = String(format: value, "Old") + String(format: value, "Other")
        let v1 = try version("v1", String(format: revision, "Old", "Old") + entities)
        let v2 = try version("v2", String(format: revision, "Other", "Other") + entities)
        let inference = InferredMapping(from: v1, to: v2)
        XCTAssertFalse(inference.isInferable)
        XCTAssertEqual(
            inference.blockers.map(\.description),
            [
                "Revision.diffs now points to Other instead of Old, whose objects become Old: Core Data cannot infer what its links become"
            ])
        let bundle = ModelBundle(name: "Diffs", versions: [v1, v2], currentVersionName: "v2")
        let unlinked = try store(v1) { writer in _ = try writer.insert("Revision", ["title": .string("r")]) }
        XCTAssertThrowsError(try MigrationPlan.make(store: unlinked, bundle: bundle, strategy: .automatic)) { error in
            XCTAssertTrue("\(error)".contains("Can't find mapping model for migration"), "\(error)")
        }
    }

    /// WordPress's `testMigrate19to21Failure`: an empty store at WordPress 19, opened with model 21
    /// by Core Data's automatic migration, is refused (only a 20 → 21 mapping model exists).
    func testAnEmptyStoreAtWordPress19IsRefusedAt21() throws {
        let bundle = try ModelBundle.read(
            at: Fixtures.root.appendingPathComponent("wordpress-ios/WordPress/Classes/WordPress.xcdatamodeld"))
        let path = try scratchDirectory().appendingPathComponent("WordPress.sqlite").path
        try PersistentStore.create(at: path, model: try version(bundle, "WordPress 19").model).close()
        XCTAssertThrowsError(
            try MigrationPlan.make(store: path, bundle: bundle, to: "WordPress 21", strategy: .automatic)
        ) { error in
            XCTAssertTrue(
                "\(error)".contains("Comment.post now points to BasePost instead of AbstractPost"), "\(error)")
        }
    }

    /// ProtonDrive 1.22 → 1.24: `Photo.children` (a join table, no inverse) becomes the inverse
    /// of `Photo.parent` (a key): the key is kept, and the links children kept on their own are
    /// dropped and named.
    func testAToManyThatBecomesTheInverseOfAToOneKeepsTheKey() throws {
        let v1 = try version(
            "v1",
            #"<entity name="Photo"><relationship name="children" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Photo"/><relationship name="parent" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Photo"/></entity>"#
        )
        let v2 = try version(
            "v2",
            #"<entity name="Photo"><relationship name="children" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Photo" inverseName="parent" inverseEntity="Photo"/><relationship name="parent" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Photo" inverseName="children" inverseEntity="Photo"/></entity>"#
        )
        let inference = InferredMapping(from: v1, to: v2)
        XCTAssertNil(inference.propertySources["Photo"]?["children"], "children starts from parent's links")
        XCTAssertEqual(inference.propertySources["Photo"]?["parent"], "parent")
        let path = try store(v1) { writer in
            let a = try writer.insert("Photo"), b = try writer.insert("Photo", toOne: ["parent": a])
            try writer.add(a, "children", [a])
            _ = b
        }
        let plan = try MigrationPlan.make(
            store: path, bundle: ModelBundle(name: "Photos", versions: [v1, v2], currentVersionName: "v2"))
        XCTAssertTrue(
            plan.steps[0].findings.contains(
                "data dropped: Photo.children is now the inverse of Photo.parent, kept in its key: the links children kept on its own are dropped (1 object with links)"
            ),
            "\(plan.steps[0].findings)")
        _ = try MigrationRunner.run(plan, store: path, options: MigrationOptions(), keepBackup: false)
        XCTAssertEqual(
            try rows(path, "SELECT Z_PK, ZPARENT FROM ZPHOTO ORDER BY Z_PK").map { $0.map(\.description) },
            [["1", "NULL"], ["2", "1"]])
    }
}
