import Foundation
import GRDB
import MigrationEngine
import ObjectModel
import SQLiteStore
import XCTest

/// An inferred step in place keeps a join table where it is when the source's table already holds
/// exactly the destination's links, column for column (`JoinTableCopy.inPlace`), renaming it and
/// its columns where their names change, as Core Data does; it rebuilds it otherwise. The links
/// come out the same either way.
final class KeptJoinTableTests: XCTestCase {
    /// A bundle of the benchmark's Library 1 (Book.tags ↔ Tag.books, unordered) and `edited`
    /// versions of it, each made by applying its replacements to Library 1's XML.
    private func library(_ edited: [String: [(String, String)]]) throws -> ModelBundle {
        let models = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Benchmarks/Models/Library.xcdatamodeld")
        let original = try String(
            contentsOf: models.appendingPathComponent("Library 1.xcdatamodel/contents"), encoding: .utf8)
        let bundle = try scratchDirectory().appendingPathComponent("Library.xcdatamodeld")
        var versions = ["Library 1": [(String, String)]()]
        versions.merge(edited) { _, new in new }
        for (name, replacements) in versions {
            let directory = bundle.appendingPathComponent("\(name).xcdatamodel")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let contents = replacements.reduce(original) { xml, change in
                xml.replacingOccurrences(of: change.0, with: change.1)
            }
            XCTAssertTrue(replacements.allSatisfy { original.contains($0.0) }, "every edit of \(name) applies")
            try contents.write(to: directory.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        }
        try
            #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>Library 1.xcdatamodel</string></dict></plist>"#
            .write(to: bundle.appendingPathComponent(".xccurrentversion"), atomically: true, encoding: .utf8)
        return try ModelBundle.read(at: bundle)
    }

    private static let notesAdded = [
        (
            #"<attribute name="title" optional="YES" attributeType="String"/>"#,
            #"<attribute name="notes" optional="YES" attributeType="String"/><attribute name="title" optional="YES" attributeType="String"/>"#
        )
    ]
    private static let tagBooksOrdered = [
        (
            #"<relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="tags""#,
            #"<relationship name="books" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="tags""#
        )
    ]
    private static let tagsOrdered = [
        (
            #"<relationship name="tags" optional="YES" toMany="YES" deletionRule"#,
            #"<relationship name="tags" optional="YES" toMany="YES" ordered="YES" deletionRule"#
        )
    ]

    private func makeStore(_ bundle: ModelBundle, at version: String, rows: Int) throws -> String {
        let path = try scratchDirectory().appendingPathComponent("Library.sqlite").path
        let model = try self.version(bundle, version).model
        let store = try PersistentStore.create(at: path, model: model)
        try DataGenerator(model: model, seed: 3).fill(store, rows: rows)
        try store.close()
        return path
    }

    private func rootPage(_ path: String, _ name: String) throws -> DatabaseValue? {
        try rows(path, "SELECT rootpage FROM sqlite_master WHERE name = '\(name)'").first?.first
    }

    func testAJoinTableWhoseLinksStayWhereTheyAreIsKeptAsItIs() throws {
        let bundle = try library(["Library 1 notes": Self.notesAdded])
        let path = try makeStore(bundle, at: "Library 1", rows: 300)
        let links = try rows(path, "SELECT Z_1BOOKS, Z_4TAGS FROM Z_1TAGS ORDER BY 1, 2")
        XCTAssertGreaterThan(links.count, 0, "the generator links books and tags")
        let (table, index) = (try rootPage(path, "Z_1TAGS"), try rootPage(path, "Z_1TAGS_Z_4TAGS_INDEX"))

        let plan = try MigrationPlan.make(store: path, bundle: bundle, to: "Library 1 notes")
        let report = try MigrationRunner.run(plan, store: path, keepBackup: false)

        XCTAssertEqual(report.steps.map(\.passes), [["inferred, in place"]])
        XCTAssertEqual(report.rowsBefore, [:], "one ALTER: no row is read or counted")
        XCTAssertEqual(try rootPage(path, "Z_1TAGS"), table, "the join table was not rebuilt")
        XCTAssertEqual(try rootPage(path, "Z_1TAGS_Z_4TAGS_INDEX"), index, "nor its index")
        XCTAssertEqual(try rows(path, "SELECT Z_1BOOKS, Z_4TAGS FROM Z_1TAGS ORDER BY 1, 2"), links)
        XCTAssertEqual(
            try rows(path, "SELECT count(*) FROM pragma_table_info('ZBOOK') WHERE name = 'ZNOTES'")[0][0],
            1.databaseValue)
        XCTAssertEqual(try rows(path, "PRAGMA integrity_check")[0][0], "ok".databaseValue)
    }

    func testAnOrderedPairIsKeptInPlaceWithItsPositions() throws {
        // The same columns before and after: kept as Core Data keeps it, whichever side is
        // ordered, every position as it was (one unset stays unset; Core Data does not number
        // positions of a table it keeps).
        for (ordered, position) in [(Self.tagsOrdered, "Z_FOK_4TAGS"), (Self.tagBooksOrdered, "Z_FOK_1BOOKS")] {
            let bundle = try library([
                "Library 1 ordered": ordered, "Library 1 ordered notes": ordered + Self.notesAdded,
            ])
            let path = try makeStore(bundle, at: "Library 1 ordered", rows: 300)
            try DatabaseQueue(path: path).write {
                try $0.execute(sql: "UPDATE Z_1TAGS SET \(position) = NULL WHERE rowid % 7 = 0")
            }
            let links = try rows(path, "SELECT Z_1BOOKS, Z_4TAGS, \(position) FROM Z_1TAGS ORDER BY 1, 2")
            let table = try rootPage(path, "Z_1TAGS")

            let plan = try MigrationPlan.make(store: path, bundle: bundle, to: "Library 1 ordered notes")
            _ = try MigrationRunner.run(plan, store: path, keepBackup: false)

            XCTAssertEqual(try rootPage(path, "Z_1TAGS"), table, "\(position): kept in place")
            XCTAssertEqual(
                try rows(path, "SELECT Z_1BOOKS, Z_4TAGS, \(position) FROM Z_1TAGS ORDER BY 1, 2"), links,
                "\(position): every link and position as it was")
        }
    }

    /// An entity added before `Book` in Core Data's order renumbers it, 1 → 2: Core Data renames
    /// `Z_1TAGS (Z_4TAGS, Z_1BOOKS)` to `Z_2TAGS (Z_5TAGS, Z_2BOOKS)` in place, keeping its rows and
    /// its old index beside the new one (Wire's stores carry such indexes from every renumbering).
    func testAJoinTableRenumberedIsRenamedInPlace() throws {
        let added = [
            (
                #"<entity name="Book" representedClassName="Book" syncable="YES">"#,
                #"<entity name="Author" representedClassName="Author" syncable="YES"><attribute name="name" optional="YES" attributeType="String"/></entity><entity name="Book" representedClassName="Book" syncable="YES">"#
            )
        ]
        let bundle = try library(["Library 1 authors": added])
        let path = try makeStore(bundle, at: "Library 1", rows: 300)
        let links = try rows(path, "SELECT Z_1BOOKS, Z_4TAGS FROM Z_1TAGS ORDER BY 1, 2")
        let table = try rootPage(path, "Z_1TAGS")

        let plan = try MigrationPlan.make(store: path, bundle: bundle, to: "Library 1 authors")
        _ = try MigrationRunner.run(plan, store: path, keepBackup: false)

        XCTAssertEqual(try rootPage(path, "Z_2TAGS"), table, "the same table, renamed")
        XCTAssertNil(try rootPage(path, "Z_1TAGS"))
        XCTAssertEqual(try rows(path, "SELECT Z_2BOOKS, Z_5TAGS FROM Z_2TAGS ORDER BY 1, 2"), links)
        XCTAssertEqual(
            try rows(
                path,
                "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Z_2TAGS' AND sql IS NOT NULL ORDER BY 1"
            ),
            [["Z_1TAGS_Z_4TAGS_INDEX".databaseValue], ["Z_2TAGS_Z_5TAGS_INDEX".databaseValue]],
            "the old index kept, Core Data's new one made")
        XCTAssertEqual(try rows(path, "PRAGMA integrity_check")[0][0], "ok".databaseValue)
    }

    func testAPairMadeOrderedIsRebuiltWithPositionsNumbered() throws {
        let bundle = try library(["Library 1 ordered": Self.tagsOrdered])
        let path = try makeStore(bundle, at: "Library 1", rows: 300)
        let links = try rows(path, "SELECT Z_1BOOKS, Z_4TAGS FROM Z_1TAGS ORDER BY 1, 2")

        let plan = try MigrationPlan.make(store: path, bundle: bundle, to: "Library 1 ordered")
        _ = try MigrationRunner.run(plan, store: path, keepBackup: false)

        XCTAssertEqual(try rows(path, "SELECT Z_1BOOKS, Z_4TAGS FROM Z_1TAGS ORDER BY 1, 2"), links)
        XCTAssertEqual(
            try rows(path, "SELECT count(*) FROM Z_1TAGS WHERE Z_FOK_4TAGS IS NULL")[0][0], 0.databaseValue,
            "every link has its position")
    }
}
