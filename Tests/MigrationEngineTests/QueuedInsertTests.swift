import Foundation
import GRDB
import MigrationEngine
import ObjectModel
import SQLiteStore
import XCTest

/// A row-by-row mapping's finished rows wait in a queue per table and go in several to an
/// `INSERT` (QueuedInserts.swift). Nothing may tell: a look-up in a table sees every row queued
/// for it, a read or an update of a queued instance finds it as inserted, queues of two tables
/// fill side by side, a chunk's rows are written before it commits, and every row arrives once.
final class QueuedInsertTests: XCTestCase {
    /// For each book: Core Data's default copy and, last, a "log" Page (queued when the call
    /// returns, beside the Book rows). Before it, with the Book queued, every 10th book looks up
    /// the log of the book before it, which waits in the Page queue; now and then a book reads
    /// that log, or renames it, through the manager.
    private final class LogPolicy: EntityMigrationPolicy, @unchecked Sendable {
        var problems: [String] = []
        var logs: [Int64: ObjectID] = [:]
        var renamed: Set<Int64> = []

        func createDestinationInstances(
            forSource source: ObjectID, in mapping: EntityMapping, manager: MigrationManager
        ) throws {
            guard try manager.createDefaultDestinationInstance(forSource: source, in: mapping) != nil else { return }
            let key = source.primaryKey
            if key % 10 == 0, let earlier = logs[key - 1] {
                let text = renamed.contains(key - 1) ? "renamed \(key - 1)" : "log \(key - 1)"
                let found = try manager.lastDestinationObjectID("Page", where: "text", equals: .string(text))
                if found != earlier {
                    problems.append(
                        "book \(key): the look-up found \(found.map(\.description) ?? "nothing"), not \(earlier)")
                }
            }
            if key % 7 == 3, let previous = logs[key - 1] {
                let read = try manager.destinationObject(previous)
                if read?.values["text"] != .string(renamed.contains(key - 1) ? "renamed \(key - 1)" : "log \(key - 1)")
                {
                    problems.append(
                        "book \(key): the log of book \(key - 1) reads back as \(read.map { "\($0.values)" } ?? "missing")"
                    )
                }
            }
            if key % 11 == 5, let previous = logs[key - 1] {
                try manager.setDestinationValues(previous, ["text": .string("renamed \(key - 1)")])
                renamed.insert(key - 1)
            }
            // Inserted last: the look-up and read above ran with a Book held back, not a Page.
            logs[key] = try manager.insertDestination("Page", ["text": .string("log \(key)")])
        }
    }

    func testQueuedRowsAreSeenByLookUpsReadsAndUpdatesAndWrittenOnce() throws {
        // More books than one multi-row INSERT holds, in chunks that end mid-batch.
        let policy = LogPolicy()
        let (path, bundle, mapping, policies) = try libraryWithBookPolicy(rows: 150, seed: 9) { policy }
        let sourcePages = try rows(path, "SELECT count(*) FROM ZPAGE")[0][0]
        let sourceBooks = try rows(path, "SELECT count(*) FROM ZBOOK")[0][0]
        _ = try MappingMigration.run(
            store: path, from: try version(bundle, "Library 1"), to: try version(bundle, "Library 2"),
            mappings: [mapping], options: MigrationOptions(policies: policies, chunkSize: 45))

        XCTAssertEqual(policy.problems, [])
        XCTAssertEqual(policy.logs.count, 150)
        XCTAssertEqual(try rows(path, "SELECT count(*) FROM ZBOOK")[0][0], sourceBooks)
        // Each log arrived once, with the text it was last given, under the key the policy was handed.
        XCTAssertEqual(
            try rows(
                path,
                "SELECT count(*), count(DISTINCT ZTEXT) FROM ZPAGE WHERE ZTEXT LIKE 'log %' OR ZTEXT LIKE 'renamed %'")[
                    0],
            [150.databaseValue, 150.databaseValue])
        XCTAssertEqual(
            try rows(path, "SELECT count(*) FROM ZPAGE WHERE ZTEXT LIKE 'renamed %'")[0][0],
            policy.renamed.count.databaseValue)
        for (key, log) in policy.logs {
            let text = policy.renamed.contains(key) ? "renamed \(key)" : "log \(key)"
            XCTAssertEqual(
                try rows(path, "SELECT ZTEXT FROM ZPAGE WHERE Z_PK = \(log.primaryKey)").first?.first,
                text.databaseValue, "book \(key)")
        }
        XCTAssertEqual(
            try rows(
                path,
                "SELECT count(*) FROM ZPAGE WHERE coalesce(ZTEXT, '') NOT LIKE 'log %' AND coalesce(ZTEXT, '') NOT LIKE 'renamed %'"
            )[0][0],
            sourcePages)
        XCTAssertEqual(
            try rows(path, "SELECT Z_MAX = (SELECT max(Z_PK) FROM ZPAGE) FROM Z_PRIMARYKEY WHERE Z_NAME = 'Page'")[0][
                0], 1.databaseValue)
    }

    /// Inserts two Pages per book, the first with a text and the second without, and a Tag with a
    /// name for every third book: each row is made in the array of the row queued before it when
    /// that row was as wide (``ObjectWriter/freshRow(_:)``), so the second Page in the first's.
    private final class TwoPagesPolicy: EntityMigrationPolicy, @unchecked Sendable {
        var written: [Int64: ObjectID] = [:], blank: [Int64: ObjectID] = [:], tags: [Int64: ObjectID] = [:]

        func createDestinationInstances(
            forSource source: ObjectID, in mapping: EntityMapping, manager: MigrationManager
        ) throws {
            guard try manager.createDefaultDestinationInstance(forSource: source, in: mapping) != nil else { return }
            let key = source.primaryKey
            written[key] = try manager.insertDestination("Page", ["text": .string("page \(key)")])
            blank[key] = try manager.insertDestination("Page")
            if key % 3 == 0 { tags[key] = try manager.insertDestination("Tag", ["name": .string("tag \(key)")]) }
        }
    }

    func testARowMadeInTheArrayOfTheRowBeforeKeepsNoneOfItsValues() throws {
        let policy = TwoPagesPolicy()
        let (path, bundle, mapping, policies) = try libraryWithBookPolicy(rows: 100, seed: 4) { policy }
        _ = try MappingMigration.run(
            store: path, from: try version(bundle, "Library 1"), to: try version(bundle, "Library 2"),
            mappings: [mapping], options: MigrationOptions(policies: policies, chunkSize: 45))

        XCTAssertEqual(policy.written.count, 100)
        XCTAssertEqual(policy.blank.count, 100)
        for (key, page) in policy.written {
            XCTAssertEqual(
                try rows(path, "SELECT ZTEXT, ZBOOK FROM ZPAGE WHERE Z_PK = \(page.primaryKey)").first,
                ["page \(key)".databaseValue, .null],
                "book \(key)'s first page")
        }
        for (key, page) in policy.blank {
            XCTAssertEqual(
                try rows(path, "SELECT ZTEXT, ZBOOK FROM ZPAGE WHERE Z_PK = \(page.primaryKey)").first, [.null, .null],
                "book \(key)'s second page")
        }
        for (key, tag) in policy.tags {
            XCTAssertEqual(
                try rows(path, "SELECT ZNAME FROM ZTAG WHERE Z_PK = \(tag.primaryKey)").first,
                ["tag \(key)".databaseValue], "book \(key)'s tag")
        }
    }
}
