import Demo
import Foundation
import GRDB
import MigrationEngine
import ObjectModel
import SQLiteStore
import XCTest

/// A policy's inserted instance is written late, so that the to-ones and values it sets next go
/// into its one `INSERT` (``PendingInsert``). Whatever the policy does next must see the instance
/// exactly as if it had been written at once: a look-up in its table, a read of it, a write to
/// another row that points at it, the end of the row.
final class PendingInsertTests: XCTestCase {
    /// For each book: Core Data's default copy, then a note Page related to it and retitled, found
    /// again by its text in the Page table and read back whole; every third book also gets a
    /// second Page inserted before the first is looked at, and a Category pointed at by name.
    private final class NotePolicy: EntityMigrationPolicy, @unchecked Sendable {
        var problems: [String] = []
        var notes = 0

        func createDestinationInstances(
            forSource source: ObjectID, in mapping: EntityMapping, manager: MigrationManager
        ) throws {
            guard let book = try manager.createDefaultDestinationInstance(forSource: source, in: mapping) else {
                return
            }
            let key = source.primaryKey
            let note = try manager.insertDestination("Page", ["text": .string("draft \(key)")])
            try manager.relateDestination(note, "book", to: [book])
            try manager.setDestinationValues(note, ["text": .string("note \(key)")])
            if key % 3 == 0 {
                let second = try manager.insertDestination("Page", ["text": .string("second \(key)")])
                try manager.relateDestination(second, "book", to: [book])
                let shelf = try manager.insertDestination("Category", ["name": .string("shelf \(key)")])
                // A to-many of the instance just inserted: its members' rows are written, it is not folded.
                try manager.relateDestination(shelf, "books", to: [book])
            }
            let found = try manager.lastDestinationObjectID("Page", where: "text", equals: .string("note \(key)"))
            if found != note {
                problems.append(
                    "book \(key): the look-up found \(found.map(\.description) ?? "nothing"), not the note \(note)")
            }
            let read = try manager.destinationObject(note)
            if read?.values["text"] != .string("note \(key)") || read?.toOne["book"] != book {
                problems.append(
                    "book \(key): the note reads back as \(read.map { "\($0.values) \($0.toOne)" } ?? "missing")")
            }
            notes += 1
        }
    }

    func testAnInstanceHeldBackIsSeenByEveryLaterCallAndWrittenWithItsToOnesAndValues() throws {
        let policy = NotePolicy()
        let (path, bundle, mapping, policies) = try libraryWithBookPolicy(rows: 60, seed: 5) { policy }
        let sourcePages = try rows(path, "SELECT count(*) FROM ZPAGE")[0][0]
        _ = try MappingMigration.run(
            store: path, from: try version(bundle, "Library 1"), to: try version(bundle, "Library 2"),
            mappings: [mapping], options: MigrationOptions(policies: policies, chunkSize: 7))

        XCTAssertEqual(policy.problems, [])
        XCTAssertEqual(policy.notes, 60)
        // Every note was written with its final text (the draft never reached the store).
        XCTAssertEqual(try rows(path, "SELECT count(*) FROM ZPAGE WHERE ZTEXT LIKE 'note %'")[0][0], 60.databaseValue)
        XCTAssertEqual(try rows(path, "SELECT count(*) FROM ZPAGE WHERE ZTEXT LIKE 'draft %'")[0][0], 0.databaseValue)
        XCTAssertEqual(try rows(path, "SELECT count(*) FROM ZPAGE WHERE ZTEXT LIKE 'second %'")[0][0], 20.databaseValue)
        // The source's pages arrived beside them, none lost or doubled.
        XCTAssertEqual(
            try rows(
                path,
                "SELECT count(*) FROM ZPAGE WHERE coalesce(ZTEXT, '') NOT LIKE 'note %' AND coalesce(ZTEXT, '') NOT LIKE 'second %'"
            )[0][0],
            sourcePages)
        // The shelves' books were set through the books' rows, after the shelf's own row was written.
        XCTAssertEqual(
            try rows(path, "SELECT count(*) FROM ZCATEGORY WHERE ZNAME LIKE 'shelf %'")[0][0], 20.databaseValue)
        // Z_PRIMARYKEY counts every key handed out, held back or not.
        XCTAssertEqual(
            try rows(path, "SELECT Z_MAX = (SELECT max(Z_PK) FROM ZPAGE) FROM Z_PRIMARYKEY WHERE Z_NAME = 'Page'")[0][
                0], 1.databaseValue)
    }

    /// A policy that fails after inserting leaves nothing of the row behind: the instance held back
    /// goes with the rollback, and the source is as it was.
    func testAnInstanceHeldBackWhenThePolicyThrowsIsNeverWritten() throws {
        struct Failing: EntityMigrationPolicy {
            func createDestinationInstances(
                forSource source: ObjectID, in mapping: EntityMapping, manager: MigrationManager
            ) throws {
                let note = try manager.insertDestination("Page", ["text": .string("doomed")])
                try manager.relateDestination(note, "book", to: [])
                if source.primaryKey == 4 { throw MigrationError(.evaluation, "book 4 refused", fix: "none") }
            }
        }
        let (path, bundle, mapping, policies) = try libraryWithBookPolicy(rows: 10, seed: 5) { Failing() }
        let before = try digest(path)
        XCTAssertThrowsError(
            try MappingMigration.run(
                store: path, from: try version(bundle, "Library 1"), to: try version(bundle, "Library 2"),
                mappings: [mapping], options: MigrationOptions(policies: policies, chunkSize: 3))
        ) { error in
            XCTAssertTrue("\(error)".contains("book 4 refused"), "\(error)")
        }
        XCTAssertEqual(try digest(path), before)
    }
}
