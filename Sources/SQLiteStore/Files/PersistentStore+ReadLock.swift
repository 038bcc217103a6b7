internal import GRDB

extension PersistentStore {
    /// Runs `body` while this connection holds a read transaction on the store, so the store's
    /// files hold still while `body` copies them: in rollback-journal mode no writer can commit,
    /// and in WAL mode no other connection closing as the last one checkpoints and deletes the
    /// `-wal` (a `sqlite3` shell that held a write lock and then exited once did, mid-copy).
    package func holdingReadLock<T>(_ body: () throws -> T) throws -> T {
        try read { db in
            // A read transaction takes its lock at its first read.
            _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master")
            return try body()
        }
    }
}
