import Foundation
import GRDB

/// A damaged page in the middle of a table, made on purpose: the schema and every other table
/// read as they were, and only a read of that table meets the damage (issue 32 §1's case).
public enum DamagedPage {
    /// Overwrites 256 bytes of the 11th leaf page of `table` in the store at `path` (found
    /// through SQLite's `dbstat`); the store must be closed.
    public static func overwrite(leafOf table: String, in path: String) throws {
        let queue = try DatabaseQueue(path: path)
        let (page, pageSize) = try queue.read { db in
            (
                try Int.fetchOne(
                    db,
                    sql:
                        "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno LIMIT 1 OFFSET 10",
                    arguments: [table]),
                try Int.fetchOne(db, sql: "PRAGMA page_size")
            )
        }
        try queue.close()
        guard let page, let pageSize else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: path])
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64((page - 1) * pageSize + 8))
        try handle.write(contentsOf: Data(repeating: 0xEE, count: 256))
    }
}
