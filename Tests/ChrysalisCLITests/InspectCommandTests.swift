import Crypto
import Foundation
import GRDB
import TestSupport
import XCTest

/// `chrysalis inspect`, run as a process on copies of every real store.
final class InspectCommandTests: FixtureTestCase {
    private func scratch() throws -> URL {
        let directory = try Fixtures.makeTemporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return directory
    }

    private func inspectJSON(_ arguments: [String]) throws -> [String: Any] {
        let result = try ChrysalisRunner.run(["inspect"] + arguments + ["--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
    }

    /// Rows per `Z_ENT` in every entity table, counted with plain SQL (the WAL applied).
    private func rowsByEntityNumber(_ path: String) throws -> (byNumber: [Int: Int], names: [String: Int]) {
        try DatabaseQueue(path: path).read { db in
            var counts: [Int: Int] = [:]
            let tables = try String.fetchAll(
                db,
                sql:
                    "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%Z_ENT INTEGER,%' AND name NOT LIKE 'A%'"
            )
            for table in tables {
                for row in try Row.fetchAll(db, sql: "SELECT Z_ENT, count(*) FROM \"\(table)\" GROUP BY Z_ENT") {
                    counts[row[0], default: 0] += row[1] as Int
                }
            }
            let names = Dictionary(
                try Row.fetchAll(db, sql: "SELECT Z_NAME, Z_ENT FROM Z_PRIMARYKEY").map {
                    ($0[0] as String, $0[1] as Int)
                },
                uniquingKeysWith: { first, _ in first })
            return (counts, names)
        }
    }

    func testEveryVerifiedStoreIsMatchedAndCountedRight() throws {
        let verified = try Fixtures.verification().filter { $0.contents != nil }
        XCTAssertFalse(verified.isEmpty)
        // Each store's own process, two at a time (each reads a bundle of up to 90 versions):
        // copied first, inspected concurrently, then checked in order.
        let copies = try verified.map { try Fixtures.copyStore($0.store, into: try scratch()) }
        let results = Results(count: verified.count)
        let bundles = verified.map { $0.contents.map(Fixtures.bundle(of:))?.path ?? "" }
        DispatchQueue.concurrentPerform(iterations: verified.count) { index in
            let bundle = bundles[index]
            results.set(
                index, Result { try ChrysalisRunner.run(["inspect", copies[index].path, "--model", bundle, "--json"]) })
        }
        var inspected = 0
        for (index, entry) in verified.enumerated() {
            let store = entry.store, copy = copies[index]
            let result = try results.value(index).get()
            XCTAssertEqual(result.status, 0, result.stderr)
            let json = try XCTUnwrap(
                try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
            // Versions with the same hashes are one model to Core Data: any of them is the store's.
            let version = try XCTUnwrap(json["matchedVersion"] as? String, store.path)
            XCTAssertTrue(entry.acceptableVersions.contains(version), "\(store.path): \(version)")
            XCTAssertEqual(
                Set((json["identicalVersions"] as? [String] ?? []) + [version]), entry.acceptableVersions, store.path)
            XCTAssertEqual(json["modelSource"] as? String, "bundle", store.path)
            let current = json["currentVersion"] as? String
            XCTAssertEqual(
                json["compatibleWithCurrent"] as? Bool, current.map(entry.acceptableVersions.contains) ?? false,
                store.path)
            inspected += 1
            let entities = try XCTUnwrap(json["entities"] as? [[String: Any]])
            let counted = try rowsByEntityNumber(copy.path)
            var total = 0
            for entity in entities {
                let name = try XCTUnwrap(entity["name"] as? String), rows = try XCTUnwrap(entity["rows"] as? Int)
                total += rows
                if let number = counted.names[name] {
                    XCTAssertEqual(rows, counted.byNumber[number] ?? 0, "\(name) in \(store.path)")
                }
            }
            XCTAssertEqual(total, counted.byNumber.values.reduce(0, +), "every row of \(store.path) is counted once")
        }
        XCTAssertEqual(inspected, verified.count)
    }

    func testStoresWithoutAMatchingVersionFallBackToTheirModelCache() throws {
        let bundle = Fixtures.root.appendingPathComponent(
            "CoreDataPlus/Tests/Resources/SampleModel/SampleModel.xcdatamodeld")
        for name in ["SampleModel2_V1.sqlite", "SampleModel2_V2.sqlite"] {
            let store = try XCTUnwrap(Fixtures.stores.first { $0.lastPathComponent == name })
            let copy = try Fixtures.copyStore(store, into: try scratch())
            let json = try inspectJSON([copy.path, "--model", bundle.path])
            XCTAssertTrue(json["matchedVersion"] is NSNull, name)
            XCTAssertEqual(json["modelSource"] as? String, "modelcache", name)
            XCTAssertEqual(json["cachedModelReproducesHashes"] as? Bool, true, name)
            XCTAssertEqual(json["compatibleWithCurrent"] as? Bool, false, name)
            XCTAssertNotNil(json["nearestVersion"] as? String, name)
            XCTAssertFalse((json["differingEntities"] as? [String] ?? []).isEmpty, name)
            let counted = try rowsByEntityNumber(copy.path)
            for entity in json["entities"] as? [[String: Any]] ?? [] {
                let number = try XCTUnwrap(counted.names[entity["name"] as? String ?? ""])
                XCTAssertEqual(entity["rows"] as? Int, counted.byNumber[number] ?? 0, "\(entity["name"]!) in \(name)")
            }
        }
    }

    func testWALStoreCountsTheRowsInItsWAL() throws {
        let store = try XCTUnwrap(
            Fixtures.stores.first { $0.lastPathComponent == "CoreDataMigration_Example_WAL.sqlite" })
        let copy = try Fixtures.copyStore(store, into: try scratch())
        let json = try inspectJSON([copy.path])
        let rows = (json["entities"] as? [[String: Any]])?.compactMap { $0["rows"] as? Int }
        XCTAssertEqual(rows, [84, 84])
        XCTAssertEqual((json["file"] as? [String: Any])?["wal"] as? String, copy.path + "-wal")
        XCTAssertEqual(json["modelSource"] as? String, "modelcache")
        XCTAssertTrue(json["currentVersion"] is NSNull)
    }

    func testTextReportSaysWhetherAMigrationIsNeeded() throws {
        let store = try XCTUnwrap(Fixtures.stores.first { $0.lastPathComponent == "Model1.sqlite" })
        let bundle = Fixtures.root.appendingPathComponent(
            "objcio-issue-4-core-data-migration/BookMigration/Model.xcdatamodeld")
        let result = try ChrysalisRunner.run([
            "inspect", try Fixtures.copyStore(store, into: try scratch()).path, "--model", bundle.path,
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(
            result.stdout.contains("Model1 of Model (current is Model3; a migration is needed)"), result.stdout)
        XCTAssertTrue(
            result.stdout.contains("Book       4  QAj4tkrjwHQVGdiK0wEeqC4C3pQrvIhRCwPbCZIk7fU="), result.stdout)
    }
}

/// Each store's inspect result, set from the threads that ran them.
private final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [Result<ChrysalisRunner.Result, Error>?]

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ value: Result<ChrysalisRunner.Result, Error>) { lock.withLock { slots[index] = value } }

    func value(_ index: Int) -> Result<ChrysalisRunner.Result, Error> {
        lock.withLock { slots[index] } ?? .failure(CocoaError(.fileNoSuchFile))
    }
}
