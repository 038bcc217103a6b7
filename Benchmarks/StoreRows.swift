import Foundation
import GRDB

/// The number of object rows in a store (every `Z`-table with a `Z_PK`), for rows per second.
enum StoreRows {
    static func count(_ path: String) throws -> Int {
        let db = try DatabaseQueue(path: path, configuration: { var c = Configuration(); c.readonly = true; return c }())
        return try db.read { db in
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z%' AND name NOT LIKE 'Z\\_%' ESCAPE '\\'")
            return try tables.reduce(0) { $0 + (try Int.fetchOne(db, sql: "SELECT count(*) FROM \"\($1)\"") ?? 0) }
        }
    }
}

/// The process's peak resident set size: the bench runs both sides in one process, so this is an
/// upper bound for either.
enum PeakMemory {
    static func megabytes() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_maxrss) / 1024
    }
}
