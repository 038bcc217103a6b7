import Foundation
import GRDB

/// The number of object rows in a store (every `Z`-table with a `Z_PK`), for rows per second.
enum StoreRows {
    static func count(_ path: String) throws -> Int {
        let db = try DatabaseQueue(
            path: path,
            configuration: {
                var c = Configuration(); c.readonly = true; return c
            }())
        return try db.read { db in
            let tables = try String.fetchAll(
                db,
                sql:
                    "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z%' AND name NOT LIKE 'Z\\_%' ESCAPE '\\'"
            )
            return try tables.reduce(0) { $0 + (try Int.fetchOne(db, sql: "SELECT count(*) FROM \"\($1)\"") ?? 0) }
        }
    }
}

/// What the benchmark process has used so far, from `getrusage`: the bench runs both sides in
/// one process, so its peak memory is an upper bound for either.
enum ProcessUsage {
    /// Peak resident set size.
    static func peakMegabytes() -> Double {
        Double(current().ru_maxrss) / 1024
    }

    /// User and system CPU seconds, all threads.
    static func cpuSeconds() -> Double {
        let usage = current()
        let seconds = { (time: timeval) in Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    private static func current() -> rusage {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage
    }
}
