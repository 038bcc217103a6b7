import Foundation
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

/// A statement prints as a person reads it (each `?` as its value's literal or `:parameter`) and
/// runs only with every parameter bound; what it prints is what a connection runs.
final class SQLStatementTests: XCTestCase {
    func testEachArgumentIsWrittenInPlaceButNotInsideQuotes() {
        let statement = SQLStatement(
            #"SELECT "odd?name", '?', ? FROM t WHERE a > ? AND b = ? AND c IS ? AND d = ?"#,
            arguments: [
                .value(.text("it's")), .parameter("after"), .value(.real(1.04)), .value(.null),
                .value(.blob(Data([1, 255]))),
            ])
        XCTAssertEqual(
            statement.description,
            #"SELECT "odd?name", '?', 'it''s' FROM t WHERE a > :after AND b = 1.04 AND c IS NULL AND d = X'01FF'"#)
        XCTAssertFalse(statement.isBound)
        XCTAssertEqual(statement.parameters, ["after"])
        let bound = statement.binding(["after": 7])
        XCTAssertTrue(bound.isBound)
        XCTAssertEqual(
            bound.description,
            #"SELECT "odd?name", '?', 'it''s' FROM t WHERE a > 7 AND b = 1.04 AND c IS NULL AND d = X'01FF'"#)
    }

    func testABoundStatementRunsWithItsValues() throws {
        let path = try scratchDirectory().appendingPathComponent("statements.sqlite").path
        let store = try PersistentStore.create(
            at: path, model: try ModelXMLReader.read(Data(RowCountTests.model.utf8), file: "Counts"))
        try store.withConnection { connection in
            try connection.execute(SQLStatement("CREATE TABLE t (a INTEGER, b TEXT, c REAL, d BLOB)"))
            let insert = SQLStatement(
                "INSERT INTO t VALUES (?, ?, ?, ?)",
                arguments: [.parameter("a"), .value("x'y"), .value(.real(2.5)), .value(.blob(Data([0])))])
            try connection.execute(insert.binding(["a": 3]))
            XCTAssertEqual(
                try connection.rows(SQLStatement("SELECT a, b, c, d FROM t")),
                [[3, "x'y", .real(2.5), .blob(Data([0]))]])
            XCTAssertEqual(try connection.prepare("SELECT count(*) FROM t WHERE a = ?").rows([3]), [[1]])
        }
        try store.close()
    }

    /// A query's rows come with its column names (an `AS` name where it has one), even when it
    /// finds no row, read through a read-only store: what the demos show as tables.
    func testAQueryReadsAsATableWithItsColumnNames() throws {
        let path = try scratchDirectory().appendingPathComponent("table.sqlite").path
        let created = try PersistentStore.create(
            at: path, model: try ModelXMLReader.read(Data(RowCountTests.model.utf8), file: "Counts"))
        try created.withConnection { connection in
            try connection.execute(SQLStatement("CREATE TABLE t (a INTEGER, b TEXT)"))
            try connection.execute(SQLStatement("INSERT INTO t VALUES (1, 'one'), (2, NULL)"))
        }
        try created.close()
        let store = try PersistentStore.open(at: path)
        defer { try? store.close() }
        let table = try store.withReadConnection {
            try $0.table(SQLStatement("SELECT a, b AS name, a * ? FROM t ORDER BY a", [.real(0.5)]))
        }
        XCTAssertEqual(table.columns, ["a", "name", "a * ?"])
        XCTAssertEqual(table.rows, [[1, "one", .real(0.5)], [2, nil, .real(1)]])
        let none = try store.withReadConnection { try $0.table(SQLStatement("SELECT a, b FROM t WHERE a > 9")) }
        XCTAssertEqual(none.columns, ["a", "b"])
        XCTAssertTrue(none.rows.isEmpty)
    }
}
