import Foundation
import GRDB
import MigrationEngine
import ObjectModel
import SQLiteStore
import XCTest

/// A staged migration's context deletes by each relationship's delete rule, as Core Data does:
/// cascade deletes the destinations too, deny refuses while there are destinations (and a cascade
/// that would reach one is refused whole, nothing deleted), nullify unlinks.
final class ContextDeleteRuleTests: XCTestCase {
    /// Authors cascade to their books; a book with loans may not be deleted (deny); a loan's book is nullified.
    private static let entities = """
        <entity name="Author" syncable="YES">
            <attribute name="name" attributeType="String"/>
            <relationship name="books" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>
        </entity>
        <entity name="Book" syncable="YES">
            <attribute name="title" attributeType="String"/>
            <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
            <relationship name="loans" optional="YES" toMany="YES" deletionRule="Deny" destinationEntity="Loan" inverseName="book" inverseEntity="Loan"/>
        </entity>
        <entity name="Loan" syncable="YES">
            <attribute name="borrower" attributeType="String"/>
            <relationship name="book" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Book" inverseName="loans" inverseEntity="Book"/>
        </entity>
        """

    private func version(_ name: String, extra: String = "") throws -> ModelBundle.Version {
        let model = try ModelXMLReader.read(
            Data(
                """
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">\(Self.entities)\(extra)</model>
                """.utf8), file: name)
        return ModelBundle.Version(name: name, model: model)
    }

    private func rows(_ path: String, _ sql: String) throws -> [String] {
        try DatabaseQueue(path: path).read { db in try String.fetchAll(db, sql: sql) }
    }

    func testCascadeDenyAndNullify() throws {
        let one = try version("Loans 1")
        let two = try version(
            "Loans 2",
            extra:
                #"<entity name="Shelf" syncable="YES"><attribute name="label" optional="YES" attributeType="String"/></entity>"#
        )
        let bundle = ModelBundle(name: "Loans", versions: [one, two], currentVersionName: "Loans 2")
        let path = try scratchDirectory().appendingPathComponent("Loans.sqlite").path
        let store = try PersistentStore.create(at: path, model: one.model)
        try store.writeObjects(StoreLayout(model: one.model)) { writer in
            let lent = try writer.insert("Author", ["name": .string("Lent")])
            let kept = try writer.insert("Book", ["title": .string("Kept")], toOne: ["author": lent])
            try writer.insert("Loan", ["borrower": .string("Ann")], toOne: ["book": kept])
            let free = try writer.insert("Author", ["name": .string("Free")])
            for title in ["Gone 1", "Gone 2"] {
                try writer.insert("Book", ["title": .string(title)], toOne: ["author": free])
            }
        }
        try store.close()
        let refusals = RecordedLines()
        let stage = CustomMigrationStage(
            from: one.versionChecksum, to: two.versionChecksum,
            willMigrate: { context in
                // Deny: the book with a loan stays, and so does its author, whose cascade would reach it.
                for name in ["Book:Kept", "Author:Lent"] {
                    let (entity, value) = (String(name.split(separator: ":")[0]), String(name.split(separator: ":")[1]))
                    let key = entity == "Book" ? "title" : "name"
                    let object = try XCTUnwrap(try context.fetch(entity, where: "\(key) == \"\(value)\"").first)
                    do { try context.delete(object) } catch { refusals.append("\(error)") }
                }
                // Cascade: the author's books go with it.
                try context.delete(try XCTUnwrap(try context.fetch("Author", where: "name == \"Free\"").first))
                try context.save()
            })
        let plan = try MigrationPlan.make(
            store: path, bundle: bundle, strategy: .staged(try StagedMigration([.custom(stage)])))
        _ = try MigrationRunner.run(plan, store: path, keepBackup: false)

        XCTAssertEqual(refusals.all.count, 2)
        XCTAssertTrue(
            refusals.all.allSatisfy {
                $0.contains("Book object")
                    && $0.contains("its relationship loans has the delete rule Deny and still has 1 destination")
            },
            "\(refusals.all)")
        XCTAssertEqual(try rows(path, "SELECT ZNAME FROM ZAUTHOR ORDER BY Z_PK"), ["Lent"])
        XCTAssertEqual(try rows(path, "SELECT ZTITLE FROM ZBOOK ORDER BY Z_PK"), ["Kept"], "Free's books went with it")
        XCTAssertEqual(
            try rows(path, "SELECT b.ZTITLE FROM ZLOAN l JOIN ZBOOK b ON b.Z_PK = l.ZBOOK"), ["Kept"],
            "the loan still points at its book")
    }
}
