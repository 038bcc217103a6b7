import Foundation
import GRDB
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

@testable import MigrationEngine

/// An in-place step counts again, in its transaction, only the tables its statements could add
/// rows to or delete rows from; a table it only alters (renumbering its entities included) keeps
/// the rows counted before it.
/// What it reports after must still be exactly what the store holds, whichever tables it counted.
final class KeptRowCountsTests: XCTestCase {
    private func version(_ name: String, _ body: String) throws -> ModelBundle.Version {
        ModelBundle.Version(
            name: name,
            model: try ModelXMLReader.read(
                Data(
                    """
                    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">\(body)</model>
                    """.utf8), file: name))
    }

    private func keptTables(_ from: ModelBundle.Version, _ to: ModelBundle.Version) -> Set<String> {
        let sql = LightweightSQL(
            inference: InferredMapping(from: from, to: to), source: StoreLayout(model: from.model),
            destination: StoreLayout(model: to.model))
        return sql.tablesKeepingRows(methods: sql.tableMethods())
    }

    private let shelf = """
        <entity name="Book"><attribute name="price" optional="YES" attributeType="Integer 64"/>\
        <relationship name="shelf" optional="YES" maxCount="1" destinationEntity="Shelf" inverseName="books" inverseEntity="Shelf"/></entity>\
        <entity name="Shelf"><attribute name="name" optional="YES" attributeType="String"/>\
        <relationship name="books" optional="YES" toMany="YES" destinationEntity="Book" inverseName="shelf" inverseEntity="Book"/></entity>
        """

    /// A store of `model` (`shelf`'s) with `shelves` shelves of `books` books each, and a
    /// damaged row: a shelf carrying Book's entity number, which no entity's count includes.
    private func shelfStore(_ name: String, model: ManagedObjectModel, shelves: Int, books: Int) throws -> String {
        let path = try scratchDirectory().appendingPathComponent(name).path
        let store = try PersistentStore.create(at: path, model: model)
        try store.writeObjects(StoreLayout(model: model)) { writer in
            for index in 0..<shelves {
                let shelf = try writer.insert("Shelf", ["name": .string("shelf \(index)")])
                for price in 1...books {
                    try writer.relate(
                        try writer.insert("Book", ["price": .integer(Int64(price))]), "shelf", to: [shelf])
                }
            }
        }
        try store.close()
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(
                sql:
                    "INSERT INTO ZSHELF (Z_PK, Z_ENT, Z_OPT, ZNAME) SELECT 99, Z_ENT, 1, 'stray' FROM Z_PRIMARYKEY WHERE Z_NAME = 'Book'"
            )
        }
        try queue.close()
        return path
    }

    /// Book.price retyped: ZBOOK is rebuilt, and the rows its copy inserted stand for its count;
    /// ZSHELF only gains a column and keeps its rows, a damaged one (another entity's number)
    /// included, which neither side counts.
    func testARebuildCountsItsTableByItsCopyAndKeepsTheCountsOfTablesItOnlyAlters() throws {
        let v1 = try version("v1", shelf)
        let v2 = try version("v2", retyped)
        XCTAssertEqual(keptTables(v1, v2), ["ZSHELF"])
        let sql = LightweightSQL(
            inference: InferredMapping(from: v1, to: v2), source: StoreLayout(model: v1.model),
            destination: StoreLayout(model: v2.model))
        XCTAssertEqual(sql.tablesCopiedWhole(methods: sql.tableMethods()), ["ZBOOK"])
        let path = try shelfStore("Shelf.sqlite", model: v1.model, shelves: 2, books: 3)
        let report = try InPlaceMigration.run(store: path, from: v1, to: v2)
        XCTAssertEqual(report.rowsAfter, ["Book": 6, "Shelf": 2])
        XCTAssertEqual(
            report.rowsAfter, try PersistentStore.open(at: path).rowCounts(model: v2.model),
            "what the store holds, table by table")
    }

    private var retyped: String {
        shelf.replacingOccurrences(of: "Integer 64", with: "Double")
            .replacingOccurrences(
                of: #"<attribute name="name""#,
                with: #"<attribute name="label" optional="YES" attributeType="String"/><attribute name="name""#)
    }

    /// The rows a copy inserted stand for its table's count only when they are exactly the rows
    /// its origins had; any other number and the table is counted, and the count finds the
    /// difference. Here the table holds 5 books where 6 were counted before.
    func testACopyThatInsertedAnotherNumberOfRowsIsCounted() throws {
        let v1 = try version("v1", shelf), v2 = try version("v2", retyped)
        let path = try shelfStore("After.sqlite", model: v2.model, shelves: 1, books: 5)
        let store = try PersistentStore.open(at: path, mode: .readWrite)
        defer { try? store.close() }
        try store.withConnection { connection in
            let inference = InferredMapping(from: v1, to: v2), layout = StoreLayout(model: v2.model)
            let before = ["Book": 6, "Shelf": 1]
            XCTAssertEqual(
                try InferredStepChecks.verifyCounts(
                    connection, inference: inference, layout: layout, rowsBefore: before,
                    tablesKeepingRows: ["ZSHELF"], rowsCopied: ["ZBOOK": 6])["Book"], 6,
                "the copy's 6 rows are the 6 counted before: the table is not read")
            XCTAssertThrowsError(
                try InferredStepChecks.verifyCounts(
                    connection, inference: inference, layout: layout, rowsBefore: before,
                    tablesKeepingRows: ["ZSHELF"], rowsCopied: ["ZBOOK": 5])
            ) { error in
                XCTAssertTrue("\(error)".contains("Book has 5 rows after the migration but Book had 6"), "\(error)")
            }
        }
    }

    /// A step whose statements rewrite every row of a table it keeps (an ordered to-many's new
    /// positions, a default filled in) reserves space for a journal of those rows; one that only
    /// adds an optional column does not.
    func testAStepThatRewritesRowsInPlaceReservesSpaceForThem() throws {
        let pages = """
            <entity name="Book"><attribute name="title" optional="YES" attributeType="String"/>\
            <relationship name="pages" optional="YES" toMany="YES" destinationEntity="Page" inverseName="book" inverseEntity="Page"/></entity>\
            <entity name="Page"><relationship name="book" optional="YES" maxCount="1" destinationEntity="Book" inverseName="pages" inverseEntity="Book"/></entity>
            """
        func sql(_ to: String) throws -> LightweightSQL {
            let v1 = try version("v1", pages), v2 = try version("v2", to)
            return LightweightSQL(
                inference: InferredMapping(from: v1, to: v2), source: StoreLayout(model: v1.model),
                destination: StoreLayout(model: v2.model))
        }
        func rewrites(_ sql: LightweightSQL) -> Bool { sql.rewritesRows(methods: sql.tableMethods()) }
        let ordered = try sql(
            pages.replacingOccurrences(
                of: #"toMany="YES" destinationEntity="Page""#,
                with: #"toMany="YES" ordered="YES" destinationEntity="Page""#))
        XCTAssertEqual(ordered.tableMethods()["ZPAGE"], .altered, "positions are numbered in place, not by a rebuild")
        XCTAssertTrue(rewrites(ordered))
        let book = #"<entity name="Book">"#
        XCTAssertFalse(
            rewrites(
                try sql(
                    pages.replacingOccurrences(
                        of: book, with: book + #"<attribute name="subtitle" optional="YES" attributeType="String"/>"#)))
        )
        XCTAssertTrue(
            rewrites(
                try sql(
                    pages.replacingOccurrences(
                        of: book,
                        with: book
                            + #"<attribute name="subtitle" optional="YES" attributeType="String" defaultValueString="none"/>"#
                    ))))
    }

    /// An entity renamed so that the numbers change: every row's Z_ENT is rewritten by one
    /// `CASE`, which carries each entity's rows to its own new number, so no table is counted
    /// again. What the step reports is still exactly what the store holds, a damaged row (another
    /// table's entity number) included, which neither side counts.
    func testARenumberingStepKeepsTheCountsUnderTheNewNumbers() throws {
        let v1 = try version("v1", shelf)
        // "Volume" sorts after "Shelf": the entity numbers swap.
        let v2 = try version(
            "v2",
            shelf.replacingOccurrences(of: #"entity name="Book""#, with: #"entity name="Volume" elementID="Book""#)
                .replacingOccurrences(of: #"destinationEntity="Book""#, with: #"destinationEntity="Volume""#)
                .replacingOccurrences(of: #"inverseEntity="Book""#, with: #"inverseEntity="Volume""#))
        XCTAssertEqual(keptTables(v1, v2), ["ZSHELF", "ZVOLUME"])
        let path = try shelfStore("Renumbered.sqlite", model: v1.model, shelves: 3, books: 4)
        let report = try InPlaceMigration.run(store: path, from: v1, to: v2)
        XCTAssertEqual(report.rowsAfter, ["Volume": 12, "Shelf": 3])
        XCTAssertEqual(
            report.rowsAfter, try PersistentStore.open(at: path).rowCounts(model: v2.model),
            "what the store holds, table by table")
        let numbers = try DatabaseQueue(path: path).read { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT 'ZVOLUME', Z_ENT, count(*) FROM ZVOLUME GROUP BY Z_ENT UNION ALL SELECT 'ZSHELF', Z_ENT, count(*) FROM ZSHELF GROUP BY Z_ENT"
            )
            .map { "\($0[0] as String) \($0[1] as Int? ?? -1) \($0[2] as Int)" }
        }
        XCTAssertEqual(
            Set(numbers), ["ZVOLUME 2 12", "ZSHELF 1 3", "ZSHELF 2 1"],
            "Shelf 2 → 1, Book 1 → Volume 2, the stray row with them")
    }

    /// A subentity dropped from a hierarchy: its rows are deleted from the shared table, which is
    /// counted again; the step reports what is left.
    func testATableAStepDeletesRowsFromIsCountedAgain() throws {
        let animals = """
            <entity name="Animal" isAbstract="YES"><attribute name="name" optional="YES" attributeType="String"/></entity>\
            <entity name="Cat" parentEntity="Animal"/><entity name="Dog" parentEntity="Animal"/>\
            <entity name="Account"><attribute name="name" optional="YES" attributeType="String"/></entity>
            """
        let v1 = try version("v1", animals)
        let v2 = try version(
            "v2",
            animals.replacingOccurrences(of: #"<entity name="Dog" parentEntity="Animal"/>"#, with: "")
                .replacingOccurrences(
                    of: #"<entity name="Account">"#,
                    with: #"<entity name="Account"><attribute name="age" optional="YES" attributeType="Integer 16"/>"#))
        XCTAssertEqual(keptTables(v1, v2), ["ZACCOUNT"], "Account keeps its number: it sorts before the hierarchy")
        let path = try scratchDirectory().appendingPathComponent("Animals.sqlite").path
        let store = try PersistentStore.create(at: path, model: v1.model)
        try store.writeObjects(StoreLayout(model: v1.model)) { writer in
            for name in ["Tom", "Kit"] { _ = try writer.insert("Cat", ["name": .string(name)]) }
            for name in ["Rex", "Bo", "Fido"] { _ = try writer.insert("Dog", ["name": .string(name)]) }
            _ = try writer.insert("Account", ["name": .string("Ann")])
        }
        try store.close()
        let report = try InPlaceMigration.run(store: path, from: v1, to: v2)
        XCTAssertEqual(report.rowsAfter, ["Account": 1, "Animal": 0, "Cat": 2])
        XCTAssertEqual(report.rowsAfter, try PersistentStore.open(at: path).rowCounts(model: v2.model))
    }
}
