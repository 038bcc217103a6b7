import Foundation
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

/// A statement run with values binds their bytes from one buffer per run (`SQLITE_STATIC`), not
/// through SQLite's own copy of each. What is stored must still be exactly what was bound, run
/// after run, whatever each value's kind, length or bytes.
final class BoundValuesTests: XCTestCase {
    func testEveryKindOfValueIsStoredByteForByteRunAfterRun() throws {
        let path = try scratchDirectory().appendingPathComponent("bound.sqlite").path
        let model = try ModelXMLReader.read(Data(RowCountTests.model.utf8), file: "Counts")
        let store = try PersistentStore.create(at: path, model: model)
        defer { try? store.close() }
        let long = String(repeating: "ß long text past the small-string size ", count: 40)
        let rows: [[SQLValue]] = [
            [.text(""), .text("short"), .blob(Data()), .null],
            [.text(long), .text("a\u{0}b"), .blob(Data([0, 1, 2, 255])), .integer(-7)],
            [.undecodableText(Data([0x66, 0xFF, 0x6F])), .text("🦋 chrysalis"), .real(1.5), .text(long + "!")],
            [.null, .text(""), .text("x"), .undecodableText(Data())],
        ]
        try store.withConnection { connection in
            try connection.inTransaction {
                try connection.execute(SQLStatement("CREATE TABLE t (n INTEGER PRIMARY KEY, a, b, c, d)"))
                let insert = try connection.prepare("INSERT INTO t VALUES (?, ?, ?, ?, ?)")
                for (number, row) in rows.enumerated() { try insert.run([.integer(Int64(number))] + row) }
            }
            // No bytes at all are valid UTF-8: read back, the empty undecodable text is plain "".
            let expected = rows.map { $0.map { $0 == .undecodableText(Data()) ? .text("") : $0 } }
            XCTAssertEqual(try connection.rows(SQLStatement("SELECT a, b, c, d FROM t ORDER BY n")), expected)
            let kinds = try connection.strings(
                SQLStatement("SELECT typeof(a) || typeof(b) || typeof(c) || typeof(d) FROM t ORDER BY n"))
            XCTAssertEqual(
                kinds, ["texttextblobnull", "texttextblobinteger", "texttextrealtext", "nulltexttexttext"],
                "an empty text stays text, not NULL; an empty blob stays a blob")
        }
    }
}
