internal import GRDB

extension StoreConnection {
    /// Sets the connection up to fill a new store (`main`) and a scratch database (`scratch`)
    /// from the store attached as `source`: no syncing and no journal for either, larger page
    /// caches for all three.
    ///
    /// For files that are thrown away if anything fails (a migration step never carries on from a
    /// caught error): every page is then written once, not to the WAL and again by each
    /// checkpoint, and no copy of old pages is kept (an in-memory journal would hold every page a
    /// stage-2 `UPDATE` touches). ``endBulkLoad()`` puts the store back to WAL, synced.
    package func beginBulkLoad(scratch: String, source: String) throws {
        let (s, w) = (SQLIdentifier.quote(source), SQLIdentifier.quote(scratch))
        try converting {
            try db.execute(
                sql: """
                    PRAGMA main.synchronous = OFF; PRAGMA main.journal_mode = OFF; PRAGMA \(w).synchronous = OFF; PRAGMA \(w).journal_mode = OFF;
                    PRAGMA main.cache_size = -16384; PRAGMA \(s).cache_size = -8192; PRAGMA \(w).cache_size = -8192
                    """)
        }
    }

    /// The store back in WAL mode with every commit synced, as Core Data keeps it.
    package func endBulkLoad() throws {
        try converting { try db.execute(sql: "PRAGMA main.synchronous = FULL; PRAGMA main.journal_mode = WAL") }
    }

    /// Moves everything in the store's `-wal` into the store and empties the `-wal`: the file
    /// then holds the whole store by itself, ready to be renamed.
    package func checkpoint() throws {
        try converting { _ = try Row.fetchAll(db, sql: "PRAGMA main.wal_checkpoint(TRUNCATE)") }
    }
}
