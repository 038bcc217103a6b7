internal import GRDB

extension StoreConnection {
    /// Runs index-building statements (each a `CREATE INDEX` on the main database) with SQLite's
    /// sorter set up for them: the page cache at SQLite's default 2 MB, so each sorted run stays
    /// small enough for the CPU's caches, and one helper thread sorting while the main thread reads
    /// the table (the machine has a second core) once the store is large enough to pay for it.
    /// Both settings are put back afterwards. `built` hears each index as it is made, so an index
    /// stage's counter moves index by index.
    ///
    /// Measured on one `CREATE INDEX … (ZCATEGORY)` (scenario relationships, `--stages`): at 10M
    /// rows 2 MB with a helper takes 3.7–3.9 s, 4 MB with one 3.9–4.1 s, 2 MB without 4.4–4.7 s,
    /// the mapping path's 16 MB load cache without 7.6–8.5 s; at 1M rows the helper saves 15%;
    /// at 200,000 it costs 40% (0.15 s against 0.10 s), so a smaller store sorts alone.
    package func buildIndexes(_ statements: [SQLStatement], built: () -> Void = {}) throws {
        guard !statements.isEmpty else { return }
        try converting {
            let threads = try Int.fetchOne(db, sql: "PRAGMA threads") ?? 0
            let pages = try Int.fetchOne(db, sql: "PRAGMA main.page_count") ?? 0
            let pageSize = try Int.fetchOne(db, sql: "PRAGMA main.page_size") ?? 4096
            let helpers = pages * pageSize >= Self.sortHelperStoreBytes ? 1 : 0
            try db.execute(sql: "PRAGMA threads = \(helpers)")
            try sorting {
                for statement in statements {
                    try execute(statement)
                    built()
                }
            }
            try db.execute(sql: "PRAGMA threads = \(threads)")
        }
    }

    /// Runs `body`, statements whose work is mostly sorting, with the page cache at SQLite's
    /// default 2 MB, then puts the cache back. SQLite's sorter keeps up to one page cache of rows
    /// in memory per sort: under a bulk load's 16 MB cache, stage 2's ranking of an ordered
    /// to-many's members (two sorts) took 16 MB more of the process and ran slower. Sqlite3 shell,
    /// that `UPDATE` at 1M rows: 16 MB 3.00 s and 68 MB resident, 4 MB 2.47 s and 30 MB, 2 MB
    /// 2.30 s and 23 MB. Smaller sorted runs stay in the CPU's caches.
    package func sorting<T>(_ body: () throws -> T) throws -> T {
        let cache = try converting { try Int.fetchOne(db, sql: "PRAGMA main.cache_size") ?? -2000 }
        try converting { try db.execute(sql: "PRAGMA main.cache_size = -2000") }
        defer { try? db.execute(sql: "PRAGMA main.cache_size = \(cache)") }
        return try body()
    }

    /// The store size from which an index build sorts with a helper thread: about a 500,000-row
    /// table, where the helper's cost and its saving were measured equal.
    static let sortHelperStoreBytes = 64 << 20
}
