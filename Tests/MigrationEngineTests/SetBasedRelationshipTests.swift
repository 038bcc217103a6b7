import Demo
import Foundation
import GRDB
import MigrationEngine
import ObjectModel
import SQLiteStore
import XCTest

/// Every relationship kind — to-one, ordered one-to-many, many-to-many — recreated set-based
/// gives exactly the store the row-by-row path gives, on the benchmark's Library models.
final class SetBasedRelationshipTests: XCTestCase {
    private let models = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Benchmarks/Models")

    private func migrate(_ path: String, setBased: Bool) throws {
        let bundle = try ModelBundle.read(at: models.appendingPathComponent("Library.xcdatamodeld"))
        let mapping = try MappingYAMLReader.read(at: models.appendingPathComponent("Mappings/Library1To2.mapping.yaml"))
        _ = try MappingMigration.run(
            store: path, from: try version(bundle, "Library 1"), to: try version(bundle, "Library 2"),
            mappings: [mapping],
            options: MigrationOptions(chunkSize: 37, configureManager: { $0.useSetBasedSQL = setBased }))
    }

    func testSetBasedAndRowByRowRelationshipsAgree() throws {
        try assertPathsAgree(keyGaps: false)
    }

    /// Keys with gaps (deleted objects) cannot be kept as they are: the set-based path numbers
    /// them through its association table, and must still give the row-by-row store.
    func testSetBasedAndRowByRowAgreeWhenSourceKeysHaveGaps() throws {
        try assertPathsAgree(keyGaps: true)
    }

    private func assertPathsAgree(keyGaps: Bool) throws {
        let directory = try scratchDirectory()
        let source = directory.appendingPathComponent("Library.sqlite").path
        let model = try version(
            try ModelBundle.read(at: models.appendingPathComponent("Library.xcdatamodeld")), "Library 1"
        ).model
        let store = try PersistentStore.create(at: source, model: model)
        try DataGenerator(model: model, seed: 7).fill(store, rows: 300)
        try store.close()
        // Some books lose their pages' order and some pages their book, so positions have gaps and NULLs.
        _ = try DatabaseQueue(path: source).write { db in
            try db.execute(
                sql:
                    "UPDATE ZPAGE SET Z_FOK_BOOK = NULL WHERE Z_PK % 7 = 0; UPDATE ZPAGE SET ZBOOK = NULL WHERE Z_PK % 11 = 0"
            )
            guard keyGaps else { return }
            // Deleted as Core Data deletes (nullify): every link to them goes too.
            try db.execute(
                sql: """
                    DELETE FROM ZBOOK WHERE Z_PK % 5 = 0; DELETE FROM ZCATEGORY WHERE Z_PK % 3 = 0; DELETE FROM ZTAG WHERE Z_PK % 4 = 0;
                    UPDATE ZPAGE SET ZBOOK = NULL, Z_FOK_BOOK = NULL WHERE ZBOOK % 5 = 0;
                    UPDATE ZBOOK SET ZCATEGORY = NULL WHERE ZCATEGORY % 3 = 0;
                    DELETE FROM Z_1TAGS WHERE Z_1BOOKS % 5 = 0 OR Z_4TAGS % 4 = 0;
                    """)
        }
        let fast = directory.appendingPathComponent("Fast.sqlite").path,
            slow = directory.appendingPathComponent("Slow.sqlite").path
        try FileManager.default.copyItem(atPath: source, toPath: fast)
        try FileManager.default.copyItem(atPath: source, toPath: slow)
        try migrate(fast, setBased: true)
        try migrate(slow, setBased: false)
        // Filled without a journal, the new store is handed over in WAL mode like any Core Data store.
        let header = try XCTUnwrap(FileHandle(forReadingFrom: URL(fileURLWithPath: fast)).readData(ofLength: 20))
        XCTAssertEqual([header[18], header[19]], [2, 2], "the file format says WAL")
        for table in ["ZBOOK", "ZCATEGORY", "ZPAGE", "ZTAG", "Z_1TAGS", "Z_PRIMARYKEY"] {
            XCTAssertEqual(
                try rows(fast, "SELECT * FROM \(table) ORDER BY 1, 2"),
                try rows(slow, "SELECT * FROM \(table) ORDER BY 1, 2"), table)
        }
        XCTAssertGreaterThan(
            Int.fromDatabaseValue(try rows(fast, "SELECT count(*) FROM Z_1TAGS")[0][0]) ?? 0, keyGaps ? 150 : 300,
            "every link was recreated")
        XCTAssertEqual(
            try rows(fast, "SELECT count(*) FROM Z_1TAGS")[0][0], try rows(source, "SELECT count(*) FROM Z_1TAGS")[0][0]
        )
        // Positions follow the source order within each book: 1024, 2048, …
        let positions = try rows(
            fast,
            "SELECT ZBOOK, group_concat(Z_FOK_BOOK) FROM (SELECT * FROM ZPAGE WHERE ZBOOK IS NOT NULL ORDER BY ZBOOK, Z_FOK_BOOK) GROUP BY ZBOOK"
        )
        for row in positions {
            let values = (String.fromDatabaseValue(row[1]) ?? "").split(separator: ",").map { Int($0) }
            XCTAssertEqual(values, (1...values.count).map { $0 * 1024 }, "book \(row[0])")
        }
    }

    /// objc.io Books Model1 → Model2: `User.books`, kept in the books' rows (`ZBOOK.ZUSER`) in
    /// Model1, becomes a many-to-many. Set-based it is one `DELETE` and one `INSERT … SELECT`
    /// through the associations; it must give the row-by-row store, also when books are missing
    /// (key gaps, books without a user) and when a policy linked books to users in stage 1
    /// (the row-by-row write replaces each user's links, and so must the set-based one).
    func testAToManyKeptInItsMembersBecomesTheSameManyToManyBothWays() throws {
        let directory = try scratchDirectory()
        let source = directory.appendingPathComponent("Books.sqlite").path
        try makeBooksModel1(at: source, rows: 400, seed: 3)
        let bundle = try ModelBundle.read(at: DemoResources.booksBundle)
        _ = try DatabaseQueue(path: source).write { db in
            try db.execute(
                sql:
                    "DELETE FROM ZBOOK WHERE Z_PK % 9 = 0; UPDATE ZBOOK SET ZUSER = NULL WHERE Z_PK % 13 = 0; DELETE FROM ZUSER WHERE Z_PK % 17 = 0"
            )
        }
        for linkedInStageOne in [false, true] {
            var policies = DemoResources.policies
            if linkedInStageOne {
                // A name is registered once: the linking policy takes the book mapping's name in a registry of its own.
                policies = PolicyRegistry()
                policies.register("MHWBookToBookPolicy") { LinkingBookPolicy() }
                policies.register("MHWUserToUserPolicy") { UserToUserPolicy() }
            }
            let fast = directory.appendingPathComponent("Fast\(linkedInStageOne).sqlite").path,
                slow = directory.appendingPathComponent("Slow\(linkedInStageOne).sqlite").path
            for (path, setBased) in [(fast, true), (slow, false)] {
                try FileManager.default.copyItem(atPath: source, toPath: path)
                _ = try MappingMigration.run(
                    store: path, from: try version(bundle, "Model1"), to: try version(bundle, "Model2"),
                    mappings: [try DemoResources.booksMapping("Model1_to_Model2")],
                    options: MigrationOptions(
                        policies: policies, chunkSize: 29, configureManager: { $0.useSetBasedSQL = setBased }))
            }
            for table in ["ZUSER", "ZBOOK", "ZAUTHOR", "Z_1BOOKS", "Z_2USERS", "Z_PRIMARYKEY"] {
                XCTAssertEqual(
                    try rows(fast, "SELECT * FROM \(table) ORDER BY 1, 2"),
                    try rows(slow, "SELECT * FROM \(table) ORDER BY 1, 2"),
                    "\(table), linked in stage 1: \(linkedInStageOne)")
            }
            let links = Int.fromDatabaseValue(try rows(fast, "SELECT count(*) FROM Z_2USERS")[0][0]) ?? 0
            let owned =
                Int.fromDatabaseValue(
                    try rows(source, "SELECT count(*) FROM ZBOOK WHERE ZUSER IN (SELECT Z_PK FROM ZUSER)")[0][0]) ?? 0
            XCTAssertEqual(links, owned, "one link per book whose user is kept, whatever stage 1 linked")
        }
    }

    /// The demo's book policy, which also links each new book to the first user in stage 1:
    /// links that the users' relationship mapping must replace in stage 2.
    private struct LinkingBookPolicy: EntityMigrationPolicy {
        func createDestinationInstances(
            forSource source: ObjectID, in mapping: EntityMapping, manager: MigrationManager
        ) throws {
            try BookToBookPolicy().createDestinationInstances(forSource: source, in: mapping, manager: manager)
            guard
                let book = try manager.destinationInstances(
                    forEntityMappingNamed: mapping.name, sourceInstances: [source]
                ).first,
                let user = try manager.firstDestinationObjectID("User", where: "userId", equals: .integer(1))
            else { return }
            try manager.addDestination(book, "users", [user])
        }
    }
}
