import Crypto
import Foundation
import GRDB
import TestSupport
import XCTest

/// `chrysalis migrate` runs the objc.io example from the command line with the real mapping models.
final class MigrateCommandTests: FixtureTestCase {
    private let books = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Sources/Demo/Resources/Books")

    func testObjcIOStoreMigratesStepByStep() throws {
        let directory = try Fixtures.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try Fixtures.copyStore(
            try XCTUnwrap(Fixtures.stores.first { $0.lastPathComponent == "Model1.sqlite" }), into: directory)
        let model = books.appendingPathComponent("Model.xcdatamodeld").path
        let first = try ChrysalisRunner.demos([
            "migrate", store.path, "--model", model, "--to", "Model2",
            "--mappings", books.appendingPathComponent("Model1_to_Model2.xcmappingmodel").path,
        ])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(first.stdout.contains("from Model1 to Model2"), first.stdout)
        XCTAssertTrue(
            first.stderr.contains("BookToBook (3/3) create instances"), "a progress line per event: \(first.stderr)")
        let second = try ChrysalisRunner.demos([
            "migrate", store.path, "--model", model, "--json",
            "--mappings", books.appendingPathComponent("Model2_to_Model3_User.xcmappingmodel").path,
            "--mappings", books.appendingPathComponent("Model2_to_Model3.xcmappingmodel").path,
        ])
        XCTAssertEqual(second.status, 0, second.stderr)
        let events = second.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let fractions = events.compactMap { $0["fraction"] as? Double }
        XCTAssertEqual(events.last?["event"] as? String, "result")
        XCTAssertEqual(events.last?["from"] as? String, "Model2")
        XCTAssertEqual(events.last?["to"] as? String, "Model3")
        XCTAssertEqual(fractions.last, 1.0)
        XCTAssertEqual(fractions, fractions.sorted())
        let kafka = try DatabaseQueue(path: store.path).read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM zauthor WHERE zname = 'Franz Kafka'")
        }
        XCTAssertEqual(kafka, 1)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(),
            ["Model1.sqlite", "Model1~.sqlite", "Model1~2.sqlite"])
    }

    /// A WAL store's backup is two files; the JSON result names both, as the text does.
    func testTheJSONResultNamesEveryFileOfAWALBackup() throws {
        let folder = try scratchDirectory()
        let bundle = ChrysalisRunner.demoResources.appendingPathComponent("BookStore.xcdatamodeld").path
        let made = folder.appendingPathComponent("Made.sqlite").path,
            store = folder.appendingPathComponent("BookStore.sqlite").path
        XCTAssertEqual(
            try ChrysalisRunner.run(["fixture", bundle, "--version", "BookStore", "--rows", "50", "--out", made])
                .status, 0)
        // Copied while a connection holds rows in its -wal: a store whose -wal is part of it.
        let app = try DatabaseQueue(path: made)
        try app.writeWithoutTransaction { db in
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            try db.execute(sql: "UPDATE ZBOOK SET ZTITLE = 'In the WAL' WHERE Z_PK = 1")
        }
        for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: made + suffix, toPath: store + suffix) }
        try app.close()
        let result = try ChrysalisRunner.run(["migrate", store, "--model", bundle, "--to", "BookStore 2", "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let last = try XCTUnwrap(result.stdout.split(separator: "\n").last)
        let event = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        let backup = folder.appendingPathComponent("BookStore~.sqlite").path
        XCTAssertEqual(event["backupFiles"] as? [String], [backup, backup + "-wal"], "\(event)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: backup + "-wal"))
    }

    func testMigrationErrorsAreOneLineAndChangeNothing() throws {
        let directory = try Fixtures.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try Fixtures.copyStore(
            try XCTUnwrap(Fixtures.stores.first { $0.lastPathComponent == "Model1.sqlite" }), into: directory)
        let before = try Data(contentsOf: store)
        // A mapping made for another bundle: named on purpose, it is an error.
        let bookStoreMapping = books.deletingLastPathComponent().appendingPathComponent(
            "Mappings/BookStore3To4.mapping.yaml"
        ).path
        let result = try ChrysalisRunner.demos([
            "migrate", store.path, "--model", books.appendingPathComponent("Model.xcdatamodeld").path, "--to", "Model2",
            "--mappings", bookStoreMapping,
        ])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        XCTAssertTrue(
            result.stderr.contains("mapping BookStore3To4 fits no version of this model bundle"), result.stderr)
        XCTAssertEqual(try Data(contentsOf: store), before)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["Model1.sqlite"])
    }

    /// A mapping that fits a step beyond `--to` is noted, not refused: the step up to the target runs.
    func testAMappingBeyondTheTargetIsNoted() throws {
        let directory = try Fixtures.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try Fixtures.copyStore(
            try XCTUnwrap(Fixtures.stores.first { $0.lastPathComponent == "Model1.sqlite" }), into: directory)
        let result = try ChrysalisRunner.demos([
            "plan", store.path, "--model", books.appendingPathComponent("Model.xcdatamodeld").path, "--to", "Model2",
            "--mappings", books.appendingPathComponent("Model1_to_Model2.xcmappingmodel").path,
            "--mappings", books.appendingPathComponent("Model2_to_Model3.xcmappingmodel").path,
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(
            result.stdout.contains("Model2_to_Model3 maps Model2 → Model3, beyond the target Model2: not used"),
            result.stdout)
    }
}
