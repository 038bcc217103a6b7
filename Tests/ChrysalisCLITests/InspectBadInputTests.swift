import Crypto
import Foundation
import GRDB
import TestSupport
import XCTest

/// Bad input to `chrysalis inspect`: one clear line on stderr, a non-zero exit, and the file
/// exactly as it was.
final class InspectBadInputTests: FixtureTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = try scratchDirectory()
    }

    private func digest(_ path: String) throws -> String {
        Data(SHA256.hash(data: try Data(contentsOf: URL(fileURLWithPath: path)))).base64EncodedString()
    }

    private func expectFailure(
        _ path: String, saying expected: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let before = try digest(path)
        let result = try ChrysalisRunner.run(["inspect", path])
        XCTAssertNotEqual(result.status, 0, file: file, line: line)
        XCTAssertEqual(result.stdout, "", file: file, line: line)
        let lines = result.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, "one line: \(result.stderr)", file: file, line: line)
        XCTAssertTrue(result.stderr.hasPrefix("error: \(path): "), result.stderr, file: file, line: line)
        XCTAssertTrue(result.stderr.contains(expected), result.stderr, file: file, line: line)
        XCTAssertEqual(try digest(path), before, "the file was modified", file: file, line: line)
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: path + "-wal"), "no sidecar was left", file: file, line: line)
    }

    private func realStoreCopy(_ name: String = "SampleModel3_V1.sqlite") throws -> URL {
        try Fixtures.copyStore(try XCTUnwrap(Fixtures.stores.first { $0.lastPathComponent == name }), into: directory)
    }

    func testTextFile() throws {
        let path = directory.appendingPathComponent("notes.sqlite").path
        try Data("these are my notes, not a database\n".utf8).write(to: URL(fileURLWithPath: path))
        try expectFailure(path, saying: "is not a SQLite file (it is text)")
    }

    func testEmptyFile() throws {
        let path = directory.appendingPathComponent("empty.sqlite").path
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data()))
        try expectFailure(path, saying: "is empty (0 bytes)")
    }

    func testTruncatedStore() throws {
        let copy = try realStoreCopy()
        let data = try Data(contentsOf: copy)
        try data.prefix(data.count / 2).write(to: copy)
        try expectFailure(copy.path, saying: "is truncated")
    }

    func testCorruptPages() throws {
        let copy = try realStoreCopy("Model1.sqlite")
        var data = try Data(contentsOf: copy)
        let pageSize = 4096
        for offset in pageSize..<data.count { data[offset] = UInt8(truncatingIfNeeded: offset &* 31) }
        try data.write(to: copy)
        try expectFailure(copy.path, saying: "corrupt")
    }

    func testSQLiteFileThatIsNotACoreDataStore() throws {
        let path = directory.appendingPathComponent("plain.sqlite").path
        try DatabaseQueue(path: path).write {
            try $0.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
        }
        try expectFailure(path, saying: "is a SQLite database but not a Core Data store (no Z_METADATA")
    }

    func testMetadataThatIsNotADictionary() throws {
        let copy = try realStoreCopy("Model1.sqlite")
        let array = try PropertyListSerialization.data(
            fromPropertyList: ["not", "a", "dictionary"], format: .binary, options: 0)
        try DatabaseQueue(path: copy.path).write {
            try $0.execute(sql: "UPDATE Z_METADATA SET Z_PLIST = ?", arguments: [array])
        }
        try expectFailure(copy.path, saying: "Z_METADATA.Z_PLIST is a property list but not a dictionary")
        try DatabaseQueue(path: copy.path).write {
            try $0.execute(sql: "UPDATE Z_METADATA SET Z_PLIST = ?", arguments: [Data("garbage".utf8)])
        }
        try expectFailure(copy.path, saying: "Z_METADATA.Z_PLIST is not a property list")
    }

    func testMissingFileAndDirectory() throws {
        let missing = directory.appendingPathComponent("nope.sqlite").path
        let result = try ChrysalisRunner.run(["inspect", missing])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stderr, "error: \(missing): no such file. Fix: check the path\n")
        let folder = try ChrysalisRunner.run(["inspect", directory.path])
        XCTAssertTrue(folder.stderr.contains("is a directory"), folder.stderr)
    }

    /// Inspecting never writes, so a read-only store is inspected, and left exactly as it was.
    func testReadOnlyStoreIsInspectedWithoutBeingTouched() throws {
        let copy = try realStoreCopy()
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: copy.path)
        let before = try digest(copy.path)
        let result = try ChrysalisRunner.run(["inspect", copy.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try digest(copy.path), before)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: directory.path), [copy.lastPathComponent],
            "no -wal or -shm left behind")
    }
}
