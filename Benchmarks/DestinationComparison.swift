import GRDB

/// Checks that Chrysalis and the baseline produced the same data: the same tables and indexes,
/// the same columns with the same types, and the same rows. Metadata (`Z_METADATA`, `Z_MODELCACHE`) is
/// model bookkeeping, not data, and is left out.
enum DestinationComparison {
    static func check(_ chrysalis: String, equals baseline: String) throws {
        let db = try DatabaseQueue(path: chrysalis, configuration: { var c = Configuration(); c.readonly = true; return c }())
        try db.inDatabase { db in
            try db.execute(sql: "ATTACH DATABASE ? AS baseline", arguments: [baseline])
            let ignored: Set<String> = ["Z_METADATA", "Z_MODELCACHE"]
            let ours = try tables(db, schema: "main").subtracting(ignored)
            let theirs = try tables(db, schema: "baseline").subtracting(ignored)
            guard ours == theirs else {
                throw BenchError("the tables differ: Chrysalis has \(ours.sorted()), the baseline \(theirs.sorted())")
            }
            let indexes = try [("main"), ("baseline")].map { Set(try String.fetchAll(db, sql: "SELECT name FROM \($0).sqlite_master WHERE type = 'index' AND sql IS NOT NULL")) }
            guard indexes[0] == indexes[1] else {
                throw BenchError("the indexes differ: Chrysalis has \(indexes[0].sorted()), the baseline \(indexes[1].sorted())")
            }
            for table in ours.sorted() {
                let columns = try self.columns(db, schema: "main", table: table)
                let baselineColumns = try self.columns(db, schema: "baseline", table: table)
                guard columns == baselineColumns else {
                    throw BenchError("\(table)'s columns differ: Chrysalis \(columns), the baseline \(baselineColumns)")
                }
                let list = columns.keys.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
                let quoted = "\"\(table)\""
                for (a, b) in [("main", "baseline"), ("baseline", "main")] {
                    let extra = try Int.fetchOne(db, sql: "SELECT count(*) FROM (SELECT \(list) FROM \(a).\(quoted) EXCEPT SELECT \(list) FROM \(b).\(quoted))") ?? 0
                    guard extra == 0 else { throw BenchError("\(table): \(extra) rows in the \(a == "main" ? "Chrysalis" : "baseline") store are not in the other") }
                }
                let counts = try [("main"), ("baseline")].map { try Int.fetchOne(db, sql: "SELECT count(*) FROM \($0).\(quoted)") ?? 0 }
                guard counts[0] == counts[1] else { throw BenchError("\(table): \(counts[0]) rows from Chrysalis, \(counts[1]) from the baseline") }
            }
        }
    }

    private static func tables(_ db: Database, schema: String) throws -> Set<String> {
        Set(try String.fetchAll(db, sql: "SELECT name FROM \(schema).sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"))
    }

    /// Column name → declared type (upper-cased).
    private static func columns(_ db: Database, schema: String, table: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT name, type FROM pragma_table_info(?, ?)", arguments: [table, schema]) {
            result[row["name"]] = (row["type"] as String).uppercased()
        }
        return result
    }
}
