import Crypto
import Foundation
import GRDB
import TestSupport
import XCTest

/// `chrysalis fixture`: stores of any size at any version, deterministic for a seed.
final class FixtureCommandTests: XCTestCase {
    private let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Sources/Demo/Resources")

    private func make(_ bundle: String, version: String, rows: Int, seed: Int, in directory: URL, name: String) throws
        -> String
    {
        let out = directory.appendingPathComponent(name).path
        let result = try ChrysalisRunner.run([
            "fixture", resources.appendingPathComponent(bundle).path, "--version", version,
            "--rows", String(rows), "--out", out, "--seed", String(seed),
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("rows/s"), result.stdout)
        return out
    }

    private func dump(_ path: String, _ sql: String) throws -> [String] {
        try DatabaseQueue(path: path).read { db in
            try Row.fetchAll(db, sql: sql).map { $0.databaseValues.map(\.description).joined(separator: "|") }
        }
    }

    func testSameSeedSameRowsAndRelationshipsAreValid() throws {
        let directory = try Fixtures.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let a = try make(
            "BookStore.xcdatamodeld", version: "BookStore 3", rows: 500, seed: 9, in: directory, name: "a.sqlite")
        let b = try make(
            "BookStore.xcdatamodeld", version: "BookStore 3", rows: 500, seed: 9, in: directory, name: "b.sqlite")
        let c = try make(
            "BookStore.xcdatamodeld", version: "BookStore 3", rows: 500, seed: 10, in: directory, name: "c.sqlite")
        let everything = "SELECT * FROM zpublication ORDER BY z_pk"
        XCTAssertEqual(try dump(a, everything), try dump(b, everything))
        XCTAssertNotEqual(try dump(a, everything), try dump(c, everything))
        for table in ["ZPUBLICATION", "ZCATEGORY", "ZPAGE"] {
            XCTAssertEqual(try dump(a, "SELECT count(*) FROM \(table)"), ["500"])
        }
        // Every key points at a row of the right entity; some are NULL; names without a space occur.
        XCTAssertEqual(
            try dump(
                a,
                "SELECT count(*) FROM zpage p WHERE p.zbook IS NOT NULL AND NOT EXISTS (SELECT 1 FROM zpublication b WHERE b.z_pk = p.zbook)"
            ), ["0"])
        XCTAssertEqual(
            try dump(
                a,
                "SELECT count(*) FROM zpublication WHERE zcategory IS NOT NULL AND zcategory NOT IN (SELECT z_pk FROM zcategory)"
            ), ["0"])
        XCTAssertNotEqual(try dump(a, "SELECT count(*) FROM zpublication WHERE ztitle IS NULL"), ["0"])
        XCTAssertNotEqual(try dump(a, "SELECT count(*) FROM zpublication WHERE zauthor NOT LIKE '% %'"), ["0"])
        XCTAssertEqual(try dump(a, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Publication'"), ["500"])
        // The store is at its version: Chrysalis recognises it by its hashes.
        let inspect = try ChrysalisRunner.run([
            "inspect", a, "--model", resources.appendingPathComponent("BookStore.xcdatamodeld").path, "--json",
        ])
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(json["matchedVersion"] as? String, "BookStore 3")
    }

    func testHierarchiesAndManyToMany() throws {
        let directory = try Fixtures.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try make(
            "Recipes.xcdatamodeld", version: "Version 2.0", rows: 200, seed: 1, in: directory, name: "r.sqlite")
        XCTAssertEqual(try dump(store, "SELECT count(*) FROM zrecipe"), ["200"])
        let joined = try dump(store, "SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'Z_[0-9]*'")
        XCTAssertEqual(joined, ["\"Z_2RECIPES\""], "Recipe.cuisines ↔ Cuisine.recipes has a join table")
        let table = try XCTUnwrap(joined.first).replacingOccurrences(of: "\"", with: "")
        XCTAssertGreaterThanOrEqual(
            Int(try dump(store, "SELECT count(*) FROM \(table)")[0])!, 200, "one or two cuisines per recipe")
    }

    /// A model SQLite cannot hold (one table over its 2000 columns): `model` says so for the
    /// version and `fixture` refuses first with the fix, leaving no file (before: SQLite's own
    /// "too many columns on ZWIDE" after a 4 KB file was written).
    /// `--out` at a symbolic link, a dangling one included: SQLite would follow it and make the
    /// store wherever it leads (as root, anywhere). Refused, nothing made at either end.
    func testAnOutPathThatIsALinkIsRefusedAndNothingIsMade() throws {
        let directory = try scratchDirectory()
        let target = directory.appendingPathComponent("elsewhere/made.sqlite")
        try FileManager.default.createDirectory(
            at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        let link = directory.appendingPathComponent("Shelf.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: target.path)
        let result = try ChrysalisRunner.run([
            "fixture", resources.appendingPathComponent("BookStore.xcdatamodeld").path, "--rows", "2", "--out",
            link.path,
        ])
        XCTAssertEqual(result.status, 1, result.stdout)
        XCTAssertTrue(
            result.stderr.contains("is a symbolic link; Chrysalis makes a store only at a free name"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: target.path), "nothing made where the link leads")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link.path), target.path)
    }

    func testATableWiderThanSQLiteHoldsIsSaidFirstAndLeavesNoFile() throws {
        let directory = try Fixtures.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let version = directory.appendingPathComponent("Wide.xcdatamodeld/V1.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        let attributes = (0..<2100).map { #"<attribute name="a\#($0)" optional="YES" attributeType="Integer 64"/>"# }
            .joined()
        try Data(
            """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0"><entity name="Wide">\(attributes)</entity></model>
            """.utf8
        ).write(to: version.appendingPathComponent("contents"))
        let bundle = version.deletingLastPathComponent().path
        let wanted = "its hierarchy's table ZWIDE would have 2103 columns, and SQLite holds at most 2000 in a table"

        let model = try ChrysalisRunner.run(["model", bundle])
        XCTAssertEqual(model.status, 0, model.stderr)
        XCTAssertTrue(
            model.stdout.contains("V1  (current; no store can be made or migrated here)")
                && model.stdout.contains(wanted), model.stdout)

        let out = directory.appendingPathComponent("wide.sqlite").path
        let fixture = try ChrysalisRunner.run(["fixture", bundle, "--rows", "3", "--out", out])
        XCTAssertNotEqual(fixture.status, 0)
        XCTAssertTrue(
            fixture.stderr.contains(wanted) && fixture.stderr.contains("Fix: move 103 or more attributes"),
            fixture.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out), "nothing made")
    }
}
