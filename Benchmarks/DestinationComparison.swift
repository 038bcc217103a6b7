import GRDB

/// Checks that two stores hold the same data — in a scenario, Chrysalis's destination and the
/// baseline's: the same tables and indexes, the same columns with the same types, and the same
/// rows. Metadata (`Z_METADATA`, `Z_MODELCACHE`) is model bookkeeping, not data, and is left out.
enum DestinationComparison {
    /// `names` say which store is which in an error.
    static func check(_ first: String, equals second: String, names: (String, String) = ("Chrysalis", "the baseline"))
        throws
    {
        let db = try DatabaseQueue(
            path: first,
            configuration: {
                var c = Configuration(); c.readonly = true; return c
            }())
        try db.inDatabase { db in
            try db.execute(sql: "ATTACH DATABASE ? AS other", arguments: [second])
            let ignored: Set<String> = ["Z_METADATA", "Z_MODELCACHE"]
            let ours = try tables(db, schema: "main").subtracting(ignored)
            let theirs = try tables(db, schema: "other").subtracting(ignored)
            guard ours == theirs else {
                throw BenchError("the tables differ: \(names.0) has \(ours.sorted()), \(names.1) \(theirs.sorted())")
            }
            let indexes = try ["main", "other"].map {
                Set(
                    try String.fetchAll(
                        db, sql: "SELECT name FROM \($0).sqlite_master WHERE type = 'index' AND sql IS NOT NULL"))
            }
            guard indexes[0] == indexes[1] else {
                throw BenchError(
                    "the indexes differ: \(names.0) has \(indexes[0].sorted()), \(names.1) \(indexes[1].sorted())")
            }
            for table in ours.sorted() {
                let columns = try self.columns(db, schema: "main", table: table)
                let otherColumns = try self.columns(db, schema: "other", table: table)
                guard columns == otherColumns else {
                    throw BenchError("\(table)'s columns differ: \(names.0) \(columns), \(names.1) \(otherColumns)")
                }
                try compareRows(db, table: table, columns: columns.keys.sorted(), names: names)
            }
        }
    }

    /// Same rows on both sides. With a key (`Z_PK`, or the table's primary key) this is one join on
    /// it — every row of the first store must find its partner with every column equal, and the
    /// counts must match — which reads each table once, where `EXCEPT` sorts both into temporary
    /// b-trees (at 10M rows that took longer than the migrations). Without a key, `EXCEPT` both ways.
    private static func compareRows(_ db: Database, table: String, columns: [String], names: (String, String)) throws {
        let quoted = "\"\(table)\""
        let counts = try ["main", "other"].map {
            try Int.fetchOne(db, sql: "SELECT count(*) FROM \($0).\(quoted)") ?? 0
        }
        guard counts[0] == counts[1] else {
            throw BenchError("\(table): \(counts[0]) rows in \(names.0), \(counts[1]) in \(names.1)")
        }
        let declaredKey = try String.fetchAll(
            db, sql: "SELECT name FROM pragma_table_info(?, 'main') WHERE pk > 0 ORDER BY pk", arguments: [table])
        let key = columns.contains("Z_PK") ? ["Z_PK"] : declaredKey
        if key.isEmpty {
            let list = columns.map { "\"\($0)\"" }.joined(separator: ", ")
            for (a, b, name) in [("main", "other", names.0), ("other", "main", names.1)] {
                let extra =
                    try Int.fetchOne(
                        db,
                        sql:
                            "SELECT count(*) FROM (SELECT \(list) FROM \(a).\(quoted) EXCEPT SELECT \(list) FROM \(b).\(quoted))"
                    ) ?? 0
                guard extra == 0 else {
                    throw BenchError("\(table): \(extra) rows in \(name) are not in the other store")
                }
            }
            return
        }
        let on = key.map { "ours.\"\($0)\" = theirs.\"\($0)\"" }.joined(separator: " AND ")
        let same = columns.map { "ours.\"\($0)\" IS theirs.\"\($0)\"" }.joined(separator: " AND ")
        let matched =
            try Int.fetchOne(
                db,
                sql: "SELECT count(*) FROM main.\(quoted) AS ours JOIN other.\(quoted) AS theirs ON \(on) WHERE \(same)"
            ) ?? 0
        guard matched == counts[0] else {
            throw BenchError(
                "\(table): \(counts[0] - matched) of \(counts[0]) rows in \(names.0) differ from the row with the same \(key.joined(separator: ", ")) in \(names.1)"
            )
        }
    }

    private static func tables(_ db: Database, schema: String) throws -> Set<String> {
        Set(
            try String.fetchAll(
                db, sql: "SELECT name FROM \(schema).sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"))
    }

    /// Column name → declared type (upper-cased).
    private static func columns(_ db: Database, schema: String, table: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for row in try Row.fetchAll(
            db, sql: "SELECT name, type FROM pragma_table_info(?, ?)", arguments: [table, schema])
        {
            result[row["name"]] = (row["type"] as String).uppercased()
        }
        return result
    }
}
