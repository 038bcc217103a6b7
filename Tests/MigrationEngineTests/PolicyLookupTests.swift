import Demo
import Foundation
import GRDB
import MigrationEngine
import ObjectModel
import SQLiteStore
import XCTest

/// Every look-up a policy can make through the manager gives what a plain query on the stores
/// gives — on attributes no index covers, on values the policy derives itself (a name reached
/// through a relationship), on `nil`, on values many rows share — and the indexes the manager
/// makes for them leave no trace: the source file is never written, and the migrated store has
/// exactly the schema of a new one.
final class PolicyLookupTests: XCTestCase {
    private let models = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Benchmarks/Models")

    /// What the policy found for one source book, as keys.
    struct Found: Equatable {
        var sameTitle: [Int64] = []
        var firstSameTitle: Int64?, lastSameTitle: Int64?
        var categoriesNamedAlike: [Int64] = []
        var firstCategory: Int64?, lastCategory: Int64?
        var pages: [Int64] = [], tags: [Int64] = []
    }

    /// Results by source book, written by the policy (one migration thread) and read after it.
    final class Recorder: @unchecked Sendable {
        var found: [Int64: Found] = [:]
        var boxes: Set<ObjectIdentifier> = []
    }

    enum SeenBooks: MigrationStateKey { typealias Value = Int }

    struct LookingPolicy: EntityMigrationPolicy {
        let recorder: Recorder

        func createDestinationInstances(
            forSource source: ObjectID, in mapping: EntityMapping, manager: MigrationManager
        ) throws {
            try manager.createDefaultDestinationInstance(forSource: source, in: mapping)
            let book = try manager.sourceObject(source)
            let title = book.values["title"] ?? .null
            // A value derived by the policy: the name of the book's category, reached through a relationship.
            let category =
                try manager.sourceDestinations(of: source, "category").first.map {
                    try manager.sourceObject($0).values["name"] ?? .null
                } ?? .null
            var found = Found()
            found.sameTitle = try manager.sourceObjectIDs("Book", where: "title", equals: title).map(\.primaryKey)
            found.firstSameTitle = try manager.firstSourceObjectID("Book", where: "title", equals: title)?.primaryKey
            found.lastSameTitle = try manager.lastSourceObjectID("Book", where: "title", equals: title)?.primaryKey
            found.categoriesNamedAlike = try manager.destinationObjectIDs("Category", where: "name", equals: category)
                .map(\.primaryKey)
            found.firstCategory = try manager.firstDestinationObjectID("Category", where: "name", equals: category)?
                .primaryKey
            found.lastCategory = try manager.lastDestinationObjectID("Category", where: "name", equals: category)?
                .primaryKey
            found.pages = try manager.sourceDestinations(of: source, "pages").map(\.primaryKey)
            found.tags = try manager.sourceDestinations(of: source, "tags").map(\.primaryKey)
            recorder.found[source.primaryKey] = found
            let seen = manager.state(SeenBooks.self) { 0 }
            seen.value += 1
            recorder.boxes.insert(ObjectIdentifier(seen))
        }
    }

    func testEveryLookUpAgreesWithAPlainQueryAndLeavesNoTrace() throws {
        let bundle = try ModelBundle.read(at: models.appendingPathComponent("Library.xcdatamodeld"))
        let directory = try scratchDirectory()
        let path = directory.appendingPathComponent("Library.sqlite").path
        let store = try PersistentStore.create(at: path, model: try version(bundle, "Library 1").model)
        try DataGenerator(model: try version(bundle, "Library 1").model, seed: 5).fill(store, rows: 300)
        try store.close()
        // Values many rows share, and nil: titles repeated, category names repeated or missing.
        try DatabaseQueue(path: path).write { db in
            try db.execute(
                sql: """
                    UPDATE ZBOOK SET ZTITLE = 'Shared' WHERE Z_PK % 7 = 0;
                    UPDATE ZBOOK SET ZTITLE = NULL WHERE Z_PK % 11 = 0;
                    UPDATE ZCATEGORY SET ZNAME = 'Poetry' WHERE Z_PK % 5 = 0;
                    UPDATE ZCATEGORY SET ZNAME = NULL WHERE Z_PK % 13 = 0;
                    """)
        }
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let expected = try expectations(sourcePath: path)
        let newStore = try PersistentStore.create(
            at: directory.appendingPathComponent("New.sqlite").path, model: try version(bundle, "Library 2").model)
        try newStore.close()

        var mapping = try MappingYAMLReader.read(at: models.appendingPathComponent("Mappings/Library1To2.mapping.yaml"))
        let bookMapping = try XCTUnwrap(mapping.entityMappings.firstIndex { $0.name == "BookToBook" })
        mapping.entityMappings[bookMapping].policyName = "LookingPolicy"
        let recorder = Recorder()
        var policies = PolicyRegistry()
        policies.register("LookingPolicy") { LookingPolicy(recorder: recorder) }
        _ = try MappingMigration.run(
            store: path, from: try version(bundle, "Library 1"), to: try version(bundle, "Library 2"),
            mappings: [mapping], options: MigrationOptions(policies: policies, chunkSize: 40))

        XCTAssertEqual(recorder.found.count, 300, "the policy saw every book")
        XCTAssertEqual(recorder.boxes.count, 1, "state is one box for the whole pass")
        let categories = try categoryKeys(path)
        for (book, found) in recorder.found.sorted(by: { $0.key < $1.key }) {
            var want = try XCTUnwrap(expected[book])
            want.categoriesNamedAlike = categories[want.categoriesNamedAlike.first ?? -1] ?? []
            want.firstCategory = want.categoriesNamedAlike.first
            want.lastCategory = want.categoriesNamedAlike.last
            XCTAssertEqual(found, want, "book \(book)")
        }
        XCTAssertGreaterThan(
            recorder.found.values.filter { $0.sameTitle.count > 1 }.count, 40, "titles many books share were looked up")
        XCTAssertGreaterThan(
            recorder.found.values.filter { $0.categoriesNamedAlike.count > 1 }.count, 10,
            "names many categories share were looked up")

        // No trace: the original (kept as the backup) byte for byte, and the migrated store's schema a new store's.
        XCTAssertEqual(
            try Data(contentsOf: directory.appendingPathComponent("Library~.sqlite")), original,
            "the source was never written")
        XCTAssertEqual(
            try schema(path), try schema(directory.appendingPathComponent("New.sqlite").path),
            "no look-up index is left in the migrated store")
    }

    /// What each look-up must give for each source book, by plain queries on the source. The
    /// category look-up is resolved against the destination afterwards: here it holds the key of
    /// the book's category in the source (or -1), whose name picks the destination's keys.
    private func expectations(sourcePath: String) throws -> [Int64: Found] {
        try DatabaseQueue(path: sourcePath).read { db in
            var result: [Int64: Found] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT Z_PK, ZTITLE, ZCATEGORY FROM ZBOOK") {
                let key: Int64 = row[0], title: String? = row[1], category: Int64? = row[2]
                var found = Found()
                found.sameTitle = try Int64.fetchAll(
                    db, sql: "SELECT Z_PK FROM ZBOOK WHERE ZTITLE IS ? ORDER BY Z_PK", arguments: [title])
                found.firstSameTitle = found.sameTitle.first
                found.lastSameTitle = found.sameTitle.last
                found.categoriesNamedAlike = [category ?? -1]
                found.pages = try Int64.fetchAll(
                    db, sql: "SELECT Z_PK FROM ZPAGE WHERE ZBOOK = ? ORDER BY Z_FOK_BOOK, Z_PK", arguments: [key])
                found.tags = try Int64.fetchAll(
                    db, sql: "SELECT Z_4TAGS FROM Z_1TAGS WHERE Z_1BOOKS = ? ORDER BY Z_4TAGS", arguments: [key])
                result[key] = found
            }
            return result
        }
    }

    /// For each category key of the source (and -1, a book without one: its name is nil), the
    /// keys of the migrated store's categories with the same name, by key.
    private func categoryKeys(_ path: String) throws -> [Int64: [Int64]] {
        let backup = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("Library~.sqlite")
            .path
        let names = try DatabaseQueue(path: backup).read { db in
            try Row.fetchAll(db, sql: "SELECT Z_PK, ZNAME FROM ZCATEGORY").map { ($0[0] as Int64, $0[1] as String?) }
        }
        return try DatabaseQueue(path: path).read { db in
            var keys: [Int64: [Int64]] = [:]
            for (key, name) in names + [(-1, nil)] {
                keys[key] = try Int64.fetchAll(
                    db, sql: "SELECT Z_PK FROM ZCATEGORY WHERE ZNAME IS ? ORDER BY Z_PK", arguments: [name])
            }
            return keys
        }
    }

    private func schema(_ path: String) throws -> [String] {
        try DatabaseQueue(path: path).read { db in
            try String.fetchAll(
                db, sql: "SELECT type || ' ' || name || ': ' || ifnull(sql, '') FROM sqlite_master ORDER BY type, name")
        }
    }
}
