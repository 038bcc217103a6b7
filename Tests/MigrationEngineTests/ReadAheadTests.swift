import Foundation
import GRDB
import MigrationEngine
import ObjectModel
import SQLiteStore
import XCTest

/// A policy walking source to-manys from the instances it visits is served, after the first
/// batches, from what the prefetch read ahead (``ObjectPrefetch/readAhead(_:)``), and the links it
/// adds to an unordered many-to-many wait in a queue (QueuedInserts.swift). Nothing may tell:
/// every walk gives what reading the source directly gives, member by member and in order,
/// across batches and chunks, and every link arrives once.
final class ReadAheadTests: XCTestCase {
    /// Walks each book's ordered pages, its tags and its category, reading every member; adds the
    /// book's tags to the new book in stage 1, twice over for the first, and leaves stage 2 alone.
    private final class WalkingPolicy: EntityMigrationPolicy, @unchecked Sendable {
        var walks: [String: [StoredObject]] = [:]
        var categories: [Int64: [ObjectID]] = [:]

        func createDestinationInstances(
            forSource source: ObjectID, in mapping: EntityMapping, manager: MigrationManager
        ) throws {
            guard let book = try manager.createDefaultDestinationInstance(forSource: source, in: mapping) else {
                return
            }
            for relationship in ["pages", "tags"] {
                walks["\(source.primaryKey) \(relationship)"] = try manager.sourceDestinations(of: source, relationship)
                    .map { try manager.sourceObject($0) }
            }
            categories[source.primaryKey] = try manager.sourceDestinations(of: source, "category")
            let tags = try manager.destinationInstances(
                forEntityMappingNamed: "TagToTag", sourceInstances: manager.sourceDestinations(of: source, "tags"))
            try manager.addDestination(book, "tags", tags)
            try manager.addDestination(book, "tags", Array(tags.prefix(1)))  // already there: still one link
        }

        func createRelationships(
            forDestination destination: ObjectID, in mapping: EntityMapping, manager: MigrationManager
        ) throws {}
        var usesDefaultRelationships: Bool { false }
    }

    func testWalksMatchTheSourceAndAddedLinksArriveOnce() throws {
        let policy = WalkingPolicy()
        let (path, bundle, mapping, policies) = try libraryWithBookPolicy(rows: 200, seed: 5) { policy }
        let original = path + ".original"
        try FileManager.default.copyItem(atPath: path, toPath: original)
        // Batches of 45 books in chunks of 45: the walks of later batches are read ahead.
        _ = try MappingMigration.run(
            store: path, from: try version(bundle, "Library 1"), to: try version(bundle, "Library 2"),
            mappings: [mapping], options: MigrationOptions(policies: policies, chunkSize: 45))

        let source = try PersistentStore.open(at: original)
        defer { try? source.close() }
        var members = 0
        try source.readObjects(StoreLayout(model: try version(bundle, "Library 1").model)) { reader in
            var books = 0
            try reader.forEachObject(of: "Book") { book in
                books += 1
                for relationship in ["pages", "tags"] {
                    let expected = try reader.destinations(of: book.id, relationship).map {
                        try XCTUnwrap(reader.object($0))
                    }
                    XCTAssertEqual(
                        policy.walks["\(book.id.primaryKey) \(relationship)"], expected,
                        "book \(book.id) \(relationship)")
                    members += expected.count
                }
                XCTAssertEqual(policy.categories[book.id.primaryKey], try reader.destinations(of: book.id, "category"))
            }
            XCTAssertEqual(books, 200)
            XCTAssertEqual(policy.walks.count, 400)
        }
        XCTAssertGreaterThan(members, 400, "the books have pages and tags to walk")
        // Each book's tags, as (title, name) pairs: the same in both stores, each link once.
        XCTAssertEqual(try bookTags(path), try bookTags(original))
        XCTAssertFalse(try bookTags(path).isEmpty)
    }

    /// Every link of Book.tags as "title|name", sorted, read through the join table's columns.
    private func bookTags(_ path: String) throws -> [String] {
        try DatabaseQueue(path: path).read { db in
            let join = try XCTUnwrap(
                String.fetchOne(
                    db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z\\_%TAGS' ESCAPE '\\'"
                ))
            let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [join])
            let book = try XCTUnwrap(columns.first { $0.hasSuffix("BOOKS") }),
                tag = try XCTUnwrap(columns.first { $0.hasSuffix("TAGS") })
            return try String.fetchAll(
                db,
                sql: """
                    SELECT quote(b.ZTITLE) || '|' || quote(t.ZNAME) FROM \(join) j JOIN ZBOOK b ON b.Z_PK = j.\(book) JOIN ZTAG t ON t.Z_PK = j.\(tag)
                    """
            ).sorted()
        }
    }
}
