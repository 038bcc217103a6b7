internal import GRDB

extension StoreConnection {
    /// Runs index-building statements (each a `CREATE INDEX` on the main database) with SQLite's
    /// sorter set up for them: the page cache at SQLite's default 2 MB, so each sorted run stays
    /// small enough for the CPU's caches, and one helper thread sorting, on another core, while the
    /// main thread reads the table, once the store is large enough to pay for it.
    /// Both settings are put back afterwards. `built` hears each index as it is made, so an index
    /// stage's counter moves index by index.
    ///
    /// Both were chosen by timing one `CREATE INDEX … (ZCATEGORY)` with each cache size, with and
    /// without a helper, at several store sizes (`chrysalis-bench --scenario relationships
    /// --stages` times the index stage): a larger cache, such as the mapping path's load cache,
    /// sorts slower; the helper pays on a large store and costs more than it saves on a small
    /// one, so a smaller store sorts alone.
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
    /// to-many's members (two sorts) took more of the process's memory and ran slower, and each
    /// smaller cache down to the default ran that `UPDATE` faster and smaller: smaller sorted
    /// runs stay in the CPU's caches (`chrysalis-bench --scenario relationships --stages` times
    /// stage 2).
    package func sorting<T>(_ body: () throws -> T) throws -> T {
        let cache = try converting { try Int.fetchOne(db, sql: "PRAGMA main.cache_size") ?? -2000 }
        try converting { try db.execute(sql: "PRAGMA main.cache_size = -2000") }
        defer { try? db.execute(sql: "PRAGMA main.cache_size = \(cache)") }
        return try body()
    }

    /// The store size from which an index build sorts with a helper thread: about a 500,000-row
    /// table, where the helper's cost and its saving were measured equal (the index stage of
    /// `chrysalis-bench --scenario relationships --stages`).
    static let sortHelperStoreBytes = 64 << 20
}
