import Foundation
import GRDB
import TestSupport
import XCTest

/// Every demo, headless, end to end, checked with plain SQL on the migrated file.
final class DemoCommandTests: XCTestCase {
    private func runDemo(_ name: String, rows: Int = 40) throws -> (output: String, store: String) {
        let directory = try Fixtures.makeTemporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let result = try ChrysalisRunner.run([
            "demo", name, "--rows", String(rows), "--dir", directory.path, "--headless",
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        let store = try XCTUnwrap(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).first {
                $0.hasSuffix(".sqlite") && !$0.contains("~")
            })
        return (result.stdout, directory.appendingPathComponent(store).path)
    }

    private func query(_ path: String, _ sql: String) throws -> [[String]] {
        try DatabaseQueue(path: path).read { db in
            try Row.fetchAll(db, sql: sql).map {
                $0.databaseValues.map { value in
                    if case .string(let text) = value.storage { return text }
                    return value.description
                }
            }
        }
    }

    func testListNamesEveryDemoInTheREADMEsWords() throws {
        let result = try ChrysalisRunner.run(["demo", "--list"])
        XCTAssertEqual(result.status, 0)
        let listed = result.stdout.split(separator: "\n").map { line -> (String, String) in
            let name = line.prefix { $0 != " " }
            return (String(name), line.dropFirst(name.count).trimmingCharacters(in: .whitespaces))
        }
        XCTAssertEqual(listed.map(\.0), ["bookstore", "books", "recipes", "groceries", "staged"])
        let readme = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
                .appendingPathComponent("README.md"), encoding: .utf8)
        for (name, summary) in listed {
            let row = readme.split(separator: "\n").first { $0.hasPrefix("| `\(name)` |") }.map {
                $0.replacingOccurrences(of: "`", with: "")
            }
            XCTAssertEqual(row, "| \(name) | \(summary) |", "the README's table says what demo --list says")
        }
    }

    func testStaged() throws {
        let (output, store) = try runDemo("staged")
        XCTAssertTrue(
            output.contains(
                "Step 1/4 done: at Shelf 1, willMigrate of the custom stage \"authors' names made unique\": 1 save"),
            output)
        XCTAssertTrue(output.contains("Step 3/4 done: at Shelf 2, didMigrate"), output)
        XCTAssertEqual(
            try query(store, "SELECT count(*) - count(DISTINCT ZNAME) FROM ZAUTHOR"), [["0"]], "one author per name")
        // What the merge did, in numbers: the authors before it and the ones it left.
        let authors = try XCTUnwrap(Int(try query(store, "SELECT count(*) FROM ZAUTHOR").first?.first ?? ""))
        let merged = try XCTUnwrap(
            output.range(of: #"validated; Author: (\d+) → "# + String(authors) + " rows", options: .regularExpression),
            "step 1 says how many authors it merged into how many:\n\(output)")
        XCTAssertGreaterThan(
            Int(output[merged].split(separator: " ")[2]) ?? 0, authors, "more authors before the merge than after")
        XCTAssertEqual(
            try query(
                store,
                "SELECT count(*) FROM ZAUTHOR a WHERE ZBOOKCOUNT != (SELECT count(*) FROM ZBOOK b WHERE b.ZAUTHOR = a.Z_PK)"
            ), [["0"]],
            "didMigrate counted every author's books")
        XCTAssertEqual(
            try query(store, "SELECT count(*) FROM ZBOOK WHERE ZPAGES IS NULL"),
            try query(store, "SELECT count(*) FROM ZBOOK"), "Shelf 3's new attribute")
    }

    func testBookStore() throws {
        let (output, store) = try runDemo("bookstore")
        XCTAssertTrue(
            output.range(of: #"ZAUTHOR\s+VARCHAR"#, options: .regularExpression) != nil,
            "ZBOOK's columns after BookStore 2 show the new one")
        XCTAssertFalse(output.contains("Migrating BookStore"), "no step line repeating itself")
        XCTAssertTrue(output.contains("so the step is lightweight"), "says why a step is lightweight")
        XCTAssertTrue(
            output.contains("a mapping model is given for this pair of versions (BookStore3To4)"),
            "and why one needs a mapping model")
        XCTAssertTrue(output.contains("changes: Book.author added"), "shows what changed in the model")
        XCTAssertTrue(output.contains("splits author at the first space"), "explains the custom policy")
        XCTAssertTrue(
            output.contains("sets synopsis = title as each Publication is associated"), "and the manager hook")
        let work = try XCTUnwrap(output.range(of: "the demo itself, not the migration"), "announces its own work")
        XCTAssertLessThan(try XCTUnwrap(output.range(of: "Step 2/4 done")).lowerBound, work.lowerBound, "after step 2")
        XCTAssertLessThan(work.lowerBound, try XCTUnwrap(output.range(of: "Step 3/4 done")).lowerBound, "before step 3")
        XCTAssertTrue(
            output.contains("Step 1/4 done: BookStore → BookStore 2, lightweight, in place"),
            "results in the words progress uses")
        XCTAssertFalse(output.contains("inferred, in place"))
        let wide = output.split(separator: "\n").filter { $0.count > 100 && !$0.contains("/") }
        XCTAssertEqual(wide, [], "no line wider than 100 columns but a path")
        XCTAssertEqual(
            try query(store, "SELECT ztitle, zfirstname, zlastname, zprice FROM zpublication ORDER BY z_pk LIMIT 4"),
            [
                ["The first book", "John", "Doe", "20.0"], ["The second book", "Jane", "Doe", "21.0"],
                ["The third book", "Bill", "Smith", "22.0"], ["The fourth book", "Jack", "Brown", "23.0"],
            ])
        XCTAssertEqual(
            try query(store, "SELECT count(*) FROM zpublication WHERE zsynopsis IS NOT ztitle"), [["0"]],
            "synopsis = title everywhere")
        XCTAssertEqual(try query(store, "SELECT count(*) FROM zpublication"), [["44"]])
        XCTAssertEqual(try query(store, "SELECT count(*) FROM sqlite_master WHERE name = 'ZBOOK'"), [["0"]])
        XCTAssertEqual(
            try query(store, "SELECT count(*) FROM zpublication WHERE zfirstname IS NOT NULL AND zlastname IS NULL")
                .first?.first.map { Int($0)! > 0 }, true,
            "generated authors include names without a space, which must not crash the split")
    }

    func testBooks() throws {
        let (_, store) = try runDemo("books")
        XCTAssertEqual(try query(store, "SELECT count(*) FROM zauthor WHERE zname = 'Franz Kafka'"), [["1"]])
        XCTAssertEqual(
            try query(
                store,
                "SELECT count(*) FROM Z_1BOOKS j JOIN zauthor a ON a.z_pk = j.Z_1AUTHORS WHERE a.zname = 'Franz Kafka'"),
            [["2"]])
        XCTAssertEqual(
            try query(store, "SELECT count(*) FROM zauthor"),
            try query(store, "SELECT count(DISTINCT zname) FROM zauthor"), "one Author per name")
        XCTAssertEqual(try query(store, "SELECT count(*) FROM zfile WHERE zbook IS NULL"), [["0"]])
    }

    func testRecipes() throws {
        let (output, store) = try runDemo("recipes")
        XCTAssertTrue(
            output.contains("Version 1.0 → Version 2.0") || output.contains("Version 1.1 → Version 2.0"), output)
        XCTAssertEqual(
            try query(store, "SELECT zname, round(ztemperature, 1), zsize FROM zrecipe ORDER BY z_pk LIMIT 3"),
            [
                ["Coq au vin", "176.7", "6"], ["Boeuf bourguignon", "162.8", "8"], ["Tarte Tatin", "190.6", "8"],
            ])
        XCTAssertEqual(
            try query(store, "SELECT round(zsalary, 2) FROM zchef WHERE zname = 'Julia Child'"), [["5200.0"]])
        XCTAssertEqual(try query(store, "SELECT ztotalcost FROM zingredient ORDER BY z_pk LIMIT 1"), [["4.5"]])
    }

    func testGroceries() throws {
        let (_, store) = try runDemo("groceries")
        XCTAssertEqual(try query(store, "SELECT zname FROM zunit ORDER BY z_pk LIMIT 3"), [["kg"], ["loaf"], ["l"]])
        XCTAssertEqual(try query(store, "SELECT count(*) FROM zunit"), [["43"]])
    }
}
