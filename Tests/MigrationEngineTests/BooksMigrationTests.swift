import Demo
import Foundation
import GRDB
import MigrationEngine
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

/// The real objc.io `Model1.sqlite` migrated Model1 → Model2 → Model3 with the real Xcode mapping
/// models (two passes for 2 → 3, `Model2_to_Model3_User` first) and the Swift policies registered
/// under the names those files use; then every check of coredata-formats.md §e1, in plain SQL.
final class BooksMigrationTests: FixtureTestCase {
    func testRealStoreMigratesToModel3() throws {
        let store = try XCTUnwrap(Fixtures.stores.first { $0.lastPathComponent == "Model1.sqlite" })
        let path = try Fixtures.copyStore(store, into: try scratchDirectory()).path
        let bundle = try ModelBundle.read(at: DemoResources.booksBundle)
        let options = MigrationOptions(policies: DemoResources.policies)
        let originalFiles = try rows(path, "SELECT ztitle, zfileurl FROM zbook ORDER BY z_pk")
        let originalUsers = try rows(
            path, "SELECT b.ztitle, u.zuserid FROM zbook b JOIN zuser u ON u.z_pk = b.zuser ORDER BY 1, 2")

        _ = try MappingMigration.run(
            store: path, from: try version(bundle, "Model1"), to: try version(bundle, "Model2"),
            mappings: [try DemoResources.booksMapping("Model1_to_Model2")], options: options)
        // Model2: one Author per distinct name, linked to its books; users keep their books.
        XCTAssertEqual(
            try rows(path, "SELECT zname FROM zauthor ORDER BY zname").map { $0[0].description },
            ["\"Franz Kafka\"", "\"Thomas Bernhard\"", "\"Witold Gombrowicz\""])
        // Each book's user became its one link in `users`, though the store's books start at key 9
        // and the new store's at 1 (the pairs are one identity, shifted).
        XCTAssertEqual(
            try rows(
                path,
                "SELECT b.ztitle, u.zuserid FROM Z_2USERS j JOIN zbook b ON b.z_pk = j.Z_2BOOKS1 JOIN zuser u ON u.z_pk = j.Z_3USERS ORDER BY 1, 2"
            ),
            originalUsers)
        XCTAssertEqual(originalUsers.count, 4)

        let report = try MappingMigration.run(
            store: path, from: try version(bundle, "Model2"), to: try version(bundle, "Model3"),
            mappings: [
                try DemoResources.booksMapping("Model2_to_Model3_User"),
                try DemoResources.booksMapping("Model2_to_Model3"),
            ], options: options)
        XCTAssertEqual(report.passes, ["Model2_to_Model3_User", "Model2_to_Model3"])
        XCTAssertEqual(
            try PersistentStore.open(at: path).metadata().versionHashes,
            VersionHash.entityHashes(of: try version(bundle, "Model3").model))
        func count(_ sql: String) throws -> Int { Int.fromDatabaseValue(try rows(path, sql)[0][0]) ?? -1 }
        // Model3's layout: Author(1) Book(2) File(3) User(4); Book.authors ↔ Author.books in Z_1BOOKS.
        XCTAssertGreaterThanOrEqual(try count("SELECT count(*) FROM zuser"), 1, "1. at least one User")
        XCTAssertEqual(try count("SELECT count(*) FROM zuser"), 3)
        XCTAssertEqual(try count("SELECT count(*) FROM zbook"), 4, "2. books exist")
        XCTAssertEqual(
            try count("SELECT count(*) FROM zauthor WHERE zname LIKE 'Franz Kafka'"), 1, "3. one Franz Kafka")
        XCTAssertEqual(
            try count(
                """
                SELECT count(DISTINCT j.Z_2BOOKS) FROM Z_1BOOKS j JOIN zauthor a ON a.z_pk = j.Z_1AUTHORS WHERE a.zname LIKE 'Franz Kafka'
                """), 2, "4. two books by Franz Kafka")
        let filesPerUser = try rows(
            path,
            "SELECT u.z_pk, (SELECT count(*) FROM zfile f WHERE f.zuser = u.z_pk) FROM zuser u WHERE u.zuserid = 1 ORDER BY u.z_pk"
        )
        XCTAssertEqual(filesPerUser.last?[1], 4.databaseValue, "5. the last User with userId 1 has 4 files")
        XCTAssertEqual(
            filesPerUser.map { $0[1] }, [0.databaseValue, 0.databaseValue, 4.databaseValue], "only that user has files")
        XCTAssertEqual(try count("SELECT count(*) FROM zfile WHERE zbook IS NULL"), 0, "6. every File has a book")
        XCTAssertEqual(
            try count(
                "SELECT count(*) FROM zbook b WHERE NOT EXISTS (SELECT 1 FROM Z_1BOOKS j WHERE j.Z_2BOOKS = b.z_pk)"),
            0,
            "7. every Book has authors")
        XCTAssertEqual(try count("SELECT count(*) FROM zfile"), 4)
        // Each file carries its book's original archived fileURL.
        let files = try rows(
            path, "SELECT b.ztitle, f.zfileurl FROM zfile f JOIN zbook b ON b.z_pk = f.zbook ORDER BY b.ztitle")
        XCTAssertEqual(Set(files.map { $0.map(\.description) }), Set(originalFiles.map { $0.map(\.description) }))
    }
}
