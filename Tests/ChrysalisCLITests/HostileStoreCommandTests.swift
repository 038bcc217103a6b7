import Foundation
import GRDB
import TestSupport
import XCTest

/// The inputs that crashed `chrysalis` (exit 132 from a `try!` in row decoding, 139 from a stack
/// overflow) or wrote `inf` into a store, run through the real binary as a user would: each
/// command must end with one readable error that says the store was not changed, leave the
/// store's bytes as they were, and leave nothing beside it (no `~N` backup, no lock or work
/// file), however often it is run again.
final class HostileStoreCommandTests: XCTestCase {
    private var directory: URL!
    private let bookStore = ChrysalisRunner.demoResources.appendingPathComponent("BookStore.xcdatamodeld").path

    override func setUpWithError() throws {
        directory = try Fixtures.makeTemporaryDirectory()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    /// A BookStore store at `version` with a few generated rows, made by `chrysalis fixture`.
    private func store(_ name: String, version: String = "BookStore") throws -> String {
        let path = directory.appendingPathComponent(name).path
        let made = try ChrysalisRunner.run(["fixture", bookStore, "--version", version, "--rows", "20", "--out", path])
        XCTAssertEqual(made.status, 0, made.stderr)
        return path
    }

    private func damage(_ path: String, _ sql: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { try $0.execute(sql: sql) }
        try queue.close()
    }

    /// `commands` (`inspect`, `plan` and `migrate` twice) on `path`: each fails with one error naming
    /// `expected`, no Swift internals, one `Fix:`, the store's bytes unchanged and nothing added.
    private func expectRefusedEverywhere(
        _ path: String, saying expected: String, extra: [String] = [],
        commands: [String] = ["inspect", "plan", "migrate", "migrate"],
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let neighbours = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        for command in commands {
            let result = try ChrysalisRunner.run([command, path, "--model", bookStore] + extra)
            XCTAssertEqual(result.status, 1, "\(command): \(result.stderr)", file: file, line: line)
            let error = result.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }
            XCTAssertEqual(error.count, 1, "\(command): one error line:\n\(result.stderr)", file: file, line: line)
            let message = String(error.first ?? "")
            XCTAssertTrue(message.contains(expected), "\(command): \(message)", file: file, line: line)
            XCTAssertEqual(
                message.components(separatedBy: "Fix:").count, 2, "\(command): one Fix: \(message)", file: file,
                line: line)
            for leak in ["SQLiteStore.", "StoreValue", "MigrationEngine.", "Optional(", ".chrysalis-new", "Swift."] {
                XCTAssertFalse(message.contains(leak), "\(command) shows \(leak): \(message)", file: file, line: line)
            }
            if command != "inspect" {
                XCTAssertTrue(
                    message.contains("the store was not changed"), "\(command) says where the store stands: \(message)",
                    file: file, line: line)
            }
            XCTAssertEqual(
                try Data(contentsOf: URL(fileURLWithPath: path)), before, "\(command) changed the store", file: file,
                line: line)
            let after = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
                .filter { !$0.hasSuffix("-shm") }  // SQLite's shared-memory index of a WAL store's reader
            XCTAssertEqual(
                after, neighbours.filter { !$0.hasSuffix("-shm") }, "\(command) left files beside the store",
                file: file, line: line)
        }
    }

    func testAMetadataPlistHoldingAnIntegerIsRefused() throws {
        let path = try store("Plist.sqlite")
        try damage(path, "UPDATE Z_METADATA SET Z_PLIST = 42")
        try expectRefusedEverywhere(path, saying: "Z_METADATA.Z_PLIST holds an integer (42) where the store's metadata")
    }

    /// A row whose Z_ENT is text is that row's damage: migrate names it and how to find it, and
    /// never blames a `-wal` that a WAL store has as a matter of course (issue 29 §6).
    func testTextInARowsZEntIsNamedWithTheRowNotTheWal() throws {
        let path = try store("TextEntity.sqlite")
        try damage(path, "UPDATE ZBOOK SET Z_ENT = 'x' WHERE Z_PK = 3")
        let result = try ChrysalisRunner.run(["migrate", path, "--model", bookStore])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(
            result.stderr.contains(
                #"ZBOOK.Z_ENT holds text ("x") where an integer belongs; the store is as it was, at BookStore; nothing was changed"#
            ),
            result.stderr)
        XCTAssertTrue(
            result.stderr.contains("SELECT Z_PK, Z_ENT FROM ZBOOK WHERE typeof(Z_ENT) != 'integer'"), result.stderr)
        XCTAssertFalse(result.stderr.contains("-wal"), result.stderr)
    }

    func testTextInZMaxIsRefused() throws {
        let path = try store("Keys.sqlite")
        try damage(path, "UPDATE Z_PRIMARYKEY SET Z_MAX = 'abc' WHERE Z_ENT = 1")
        try expectRefusedEverywhere(
            path, saying: "Z_PRIMARYKEY.Z_MAX (the row of Z_ENT 1) holds text (\"abc\") where an integer belongs")
    }

    func testAKeyTooLargeToCountOnFromIsRefused() throws {
        let path = try store("Huge.sqlite")
        try damage(path, "UPDATE Z_PRIMARYKEY SET Z_MAX = 9223372036854775807 WHERE Z_ENT = 1")
        try expectRefusedEverywhere(
            path,
            saying:
                "Z_PRIMARYKEY.Z_MAX (the row of Z_ENT 1) holds an integer (9223372036854775807) where a key from 0 to")
    }

    /// A `-wal` copied from another database: SQLite reads the store through it, so the store
    /// shows the other database's tables. The message says the -wal is why.
    func testAWalCopiedFromAnotherDatabaseIsRefused() throws {
        let path = try store("Wal.sqlite")
        let other = directory.appendingPathComponent("other").path
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0")
        }
        let pool = try DatabaseQueue(path: other + "/notes.db", configuration: configuration)
        try pool.write { db in
            try db.execute(sql: "CREATE TABLE notes (text TEXT)")
            for index in 0..<200 { try db.execute(sql: "INSERT INTO notes VALUES (?)", arguments: ["note \(index)"]) }
        }
        try FileManager.default.copyItem(atPath: other + "/notes.db-wal", toPath: path + "-wal")
        try pool.close()
        try FileManager.default.removeItem(atPath: other)
        let wal = try Data(contentsOf: URL(fileURLWithPath: path + "-wal"))
        try expectRefusedEverywhere(path, saying: "as read through the -wal beside it")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path + "-wal")), wal, "the -wal is left as it was")
    }

    /// `1.04e999` is no number Core Data's parser reads (Swift's reads it as infinity): refused at
    /// plan time, with the column.
    func testAnInfiniteLiteralIsRefusedWhenPlanning() throws {
        let path = try store("Literal.sqlite", version: "BookStore 4")
        let mapping = try mappingYAML("Literal", price: "$source.price * 1.04e999")
        try expectRefusedEverywhere(
            path, saying: "'1.04e999' is past the range of a Double", extra: ["--mappings", mapping],
            commands: ["plan", "migrate", "migrate"])
    }

    /// Arithmetic that overflows at run time stops the migration (it would write `inf`): on the
    /// set-based path, which this mapping takes, as on the row-by-row one.
    func testArithmeticOverflowingADoubleStopsTheMigration() throws {
        let path = try store("Overflow.sqlite", version: "BookStore 4")
        try damage(path, "UPDATE ZPUBLICATION SET ZPRICE = 1e300")
        let mapping = try mappingYAML("Overflow", price: "$source.price * 1e300")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let result = try ChrysalisRunner.run(["migrate", path, "--model", bookStore, "--mappings", mapping])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("gives infinity, past the range of a Double"), result.stderr)
        XCTAssertTrue(result.stderr.contains("the store is as it was, at BookStore 4"), result.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasSuffix(".yaml") },
            ["Overflow.sqlite"])
    }

    /// BookStore 4 → 5 with Publication's price set to `price`.
    private func mappingYAML(_ name: String, price: String) throws -> String {
        let path = directory.appendingPathComponent("\(name).mapping.yaml").path
        try """
        source: BookStore 4
        destination: BookStore 5
        entityMappings:
          - name: CategoryToCategory
            source: Category
            destination: Category
          - name: PublicationToPublication
            source: Publication
            destination: Publication
            attributes:
              title: $source.title
              price: \(price)
          - name: PageToPage
            source: Page
            destination: Page
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Keys Core Data never writes (zero, and `Int64.min`, whose span to the highest key is more
    /// than `Int64` holds): the store fuzzer's input #1130 crashed on the span (exit 132), and
    /// the set-based path then left every row with a key below 1 behind while saying it had
    /// migrated. Every row arrives, with its values.
    func testKeysBelowOneAreMigratedLikeAnyOther() throws {
        let path = try store("Keys.sqlite", version: "BookStore 4")
        try damage(
            path,
            """
            UPDATE ZPUBLICATION SET Z_PK = -9223372036854775808 WHERE Z_PK = (SELECT min(Z_PK) FROM ZPUBLICATION);
            UPDATE ZPUBLICATION SET Z_PK = 0 WHERE Z_PK = (SELECT max(Z_PK) FROM ZPUBLICATION);
            UPDATE ZCATEGORY SET Z_PK = -1 WHERE Z_PK = (SELECT min(Z_PK) FROM ZCATEGORY WHERE Z_PK NOT IN (SELECT ZCATEGORY FROM ZPUBLICATION WHERE ZCATEGORY IS NOT NULL));
            """)
        let titles = "SELECT ZTITLE FROM ZPUBLICATION ORDER BY ZTITLE",
            names = "SELECT ZNAME FROM ZCATEGORY ORDER BY ZNAME"
        let before = try DatabaseQueue(path: path).read { db in
            (try String?.fetchAll(db, sql: titles), try String?.fetchAll(db, sql: names))
        }
        XCTAssertEqual(before.0.count, 20)
        let mapping = ChrysalisRunner.demoResources.appendingPathComponent("Mappings/BookStore4To5.mapping.yaml").path
        let migrated = try ChrysalisRunner.run([
            "migrate", path, "--model", bookStore, "--mappings", mapping, "--no-backup",
        ])
        XCTAssertEqual(migrated.status, 0, migrated.stderr)
        XCTAssertTrue(migrated.stdout.contains("Publication          20 → 20"), migrated.stdout)
        let after = try DatabaseQueue(path: path).read { db in
            (try String?.fetchAll(db, sql: titles), try String?.fetchAll(db, sql: names))
        }
        XCTAssertEqual(after.0, before.0, "every publication, with its title")
        XCTAssertEqual(after.1, before.1, "every category, with its name")
    }

    /// A model nested 100,000 deep, and a mapping model 50,000 deep, tore the stack down (exit
    /// 139): both are refused while parsing.
    func testDeeplyNestedModelAndMappingFilesAreRefused() throws {
        let bundle = directory.appendingPathComponent("Deep.xcdatamodeld/Deep.xcdatamodel")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        try
            ("<?xml version=\"1.0\"?><model>" + String(repeating: "<entity name=\"A\">", count: 100_000)
            + String(repeating: "</entity>", count: 100_000) + "</model>").write(
                to: bundle.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        let model = try ChrysalisRunner.run(["model", bundle.deletingLastPathComponent().path])
        XCTAssertEqual(model.status, 1, model.stderr)
        XCTAssertTrue(model.stderr.contains("contents:1: elements are nested more than 256 deep"), model.stderr)

        let mapping = directory.appendingPathComponent("Deep.xcmappingmodel")
        try FileManager.default.createDirectory(at: mapping, withIntermediateDirectories: true)
        try
            ("<?xml version=\"1.0\"?><database>" + String(repeating: "<object type=\"X\">", count: 50_000)
            + String(repeating: "</object>", count: 50_000) + "</database>").write(
                to: mapping.appendingPathComponent("xcmapping.xml"), atomically: true, encoding: .utf8)
        let read = try ChrysalisRunner.run(["mapping", mapping.path])
        XCTAssertEqual(read.status, 1, read.stderr)
        XCTAssertTrue(read.stderr.contains("xcmapping.xml:1: elements are nested more than 256 deep"), read.stderr)
    }
}
