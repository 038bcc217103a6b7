import GRDB
@testable import MigrationEngine
import XCTest

/// Indexes are built with SQLite's sorter tuned for it (a helper thread, a small page cache);
/// the connection's own settings come back afterwards, whatever they were.
final class IndexBuildTests: XCTestCase {
    func testAnIndexBuildLeavesTheConnectionAsItFoundIt() throws {
        let path = try scratchDirectory().appendingPathComponent("index.sqlite").path
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (a INTEGER PRIMARY KEY, b INTEGER)")
            for a in 1...5_000 { try db.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: [a, (a * 7919) % 1_000]) }
            try db.execute(sql: "PRAGMA main.cache_size = -12345; PRAGMA threads = 0")
            try IndexBuild.run(["CREATE INDEX t_b ON t (b)"], in: db)
            XCTAssertEqual(try Int.fetchOne(db, sql: "PRAGMA main.cache_size"), -12345)
            XCTAssertEqual(try Int.fetchOne(db, sql: "PRAGMA threads"), 0)
            XCTAssertEqual(try String.fetchAll(db, sql: "PRAGMA integrity_check"), ["ok"])
            // The index holds every row, in order of b.
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM t INDEXED BY t_b WHERE b >= 0"), 5_000)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT a FROM t INDEXED BY t_b WHERE b >= 0 ORDER BY b, a LIMIT 1"), 1_000)
        }
        try queue.close()
    }
}
