internal import GRDB

extension StoreConnection {
    /// Runs index-building statements (each a `CREATE INDEX` on the main database) with SQLite's
    /// sorter set up for them: one helper thread sorts while the main thread reads the table (the
    /// machine has a second core), and the page cache is held at 4 MB meanwhile, so each sorted run
    /// stays small enough for the CPU's caches. One 10M-row index took 17 s with a 16 MB cache and
    /// no helper, 10 s like this, and the process held 17 MB instead of 37 MB (BENCHMARKS.md).
    /// Both settings are put back afterwards. `built` hears each index as it is made, so an index
    /// stage's counter moves index by index.
    package func buildIndexes(_ statements: [SQLStatement], built: () -> Void = {}) throws {
        guard !statements.isEmpty else { return }
        try converting {
            let cache = try Int.fetchOne(db, sql: "PRAGMA main.cache_size") ?? -2000
            let threads = try Int.fetchOne(db, sql: "PRAGMA threads") ?? 0
            try db.execute(sql: "PRAGMA main.cache_size = -4096; PRAGMA threads = 1")
            for statement in statements {
                try execute(statement)
                built()
            }
            try db.execute(sql: "PRAGMA main.cache_size = \(cache); PRAGMA threads = \(threads)")
        }
    }
}
