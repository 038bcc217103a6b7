import Foundation
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

/// Indexes are built with SQLite's sorter tuned for it (a helper thread, a small page cache);
/// the connection's own settings come back afterwards, whatever they were.
final class IndexBuildTests: XCTestCase {
    func testAnIndexBuildLeavesTheConnectionAsItFoundIt() throws {
        let path = try scratchDirectory().appendingPathComponent("index.sqlite").path
        let model = try ModelXMLReader.read(Data(RowCountTests.model.utf8), file: "Counts")
        let store = try PersistentStore.create(at: path, model: model)
        try store.withConnection { connection in
            try connection.inTransaction {
                try connection.execute(SQLStatement("CREATE TABLE t (a INTEGER PRIMARY KEY, b INTEGER)"))
                let insert = try connection.prepare("INSERT INTO t VALUES (?, ?)")
                for a in 1...5_000 { try insert.run([SQLValue(a), SQLValue((a * 7919) % 1_000)]) }
            }
            try connection.execute(SQLStatement("PRAGMA main.cache_size = -12345; PRAGMA threads = 0"))
            try connection.buildIndexes([SQLStatement("CREATE INDEX t_b ON t (b)")])
            XCTAssertEqual(try connection.integer(SQLStatement("PRAGMA main.cache_size")), -12345)
            XCTAssertEqual(try connection.integer(SQLStatement("PRAGMA threads")), 0)
            XCTAssertEqual(try connection.integrityCheck(), ["ok"])
            // The index holds every row, in order of b.
            XCTAssertEqual(
                try connection.integer(SQLStatement("SELECT count(*) FROM t INDEXED BY t_b WHERE b >= 0")), 5_000)
            XCTAssertEqual(
                try connection.integer(
                    SQLStatement("SELECT a FROM t INDEXED BY t_b WHERE b >= 0 ORDER BY b, a LIMIT 1")), 1_000)
        }
        try store.close()
    }
}
