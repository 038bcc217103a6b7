internal import GRDB

extension StoreConnection {
    /// Runs index-building statements (each a `CREATE INDEX` on the main database) with SQLite's
    /// sorter set up for them: the page cache at SQLite's default 2 MB, so each sorted run stays
    /// small enough for the CPU's caches, and one helper thread sorting while the main thread reads
    /// the table (the machine has a second core) once the store is large enough to pay for it.
    /// Both settings are put back afterwards. `built` hears each index as it is made, so an index
    /// stage's counter moves index by index.
    ///
    /// Measured on one `CREATE INDEX … (ZCATEGORY)` (BENCHMARKS.md, fourteenth session): at 10M
    /// rows 2 MB with a helper takes 3.7–3.9 s, 4 MB with one 3.9–4.1 s, 2 MB without 4.4–4.7 s,
    /// the mapping path's 16 MB load cache without 7.6–8.5 s; at 1M rows the helper saves 15%;
    /// at 200,000 it costs 40% (0.15 s against 0.10 s), so a smaller store sorts alone.
    package func buildIndexes(_ statements: [SQLStatement], built: () -> Void = {}) throws {
        guard !statements.isEmpty else { return }
        try converting {
            let cache = try Int.fetchOne(db, sql: "PRAGMA main.cache_size") ?? -2000
            let threads = try Int.fetchOne(db, sql: "PRAGMA threads") ?? 0
            let pages = try Int.fetchOne(db, sql: "PRAGMA main.page_count") ?? 0
            let pageSize = try Int.fetchOne(db, sql: "PRAGMA main.page_size") ?? 4096
            let helpers = pages * pageSize >= Self.sortHelperStoreBytes ? 1 : 0
            try db.execute(sql: "PRAGMA main.cache_size = -2000; PRAGMA threads = \(helpers)")
            for statement in statements {
                try execute(statement)
                built()
            }
            try db.execute(sql: "PRAGMA main.cache_size = \(cache); PRAGMA threads = \(threads)")
        }
    }

    /// The store size from which an index build sorts with a helper thread: about a 500,000-row
    /// table, where the helper's cost and its saving were measured equal.
    static let sortHelperStoreBytes = 64 << 20
}
