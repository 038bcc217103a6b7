import Foundation
import GRDB

/// A store's schema as plain values, read with SQL, for comparing a store Chrysalis created with
/// one Core Data created.
public struct SchemaSnapshot: Equatable, Sendable {
    public struct Index: Hashable, Sendable, CustomStringConvertible {
        public init(name: String, table: String, columns: [String], isUnique: Bool) {
            self.name = name
            self.table = table
            self.columns = columns
            self.isUnique = isUnique
        }
        public var name, table: String
        public var columns: [String]
        public var isUnique: Bool
        public var description: String {
            "\(isUnique ? "UNIQUE " : "")\(name) ON \(table)(\(columns.joined(separator: ",")))"
        }
        /// The index without its name: what it covers.
        public var shape: String { "\(isUnique ? "UNIQUE " : "")\(table)(\(columns.joined(separator: ",")))" }
    }

    /// Table name → column name → declared type.
    public var tables: [String: [String: String]]
    /// Table name → its columns in table order, each as `NAME TYPE`.
    public var columnOrder: [String: [String]] = [:]
    /// The tables made whole by one `CREATE TABLE` under the name they have: not renamed in place
    /// (SQLite quotes a renamed table's name) and without a column added since (`ALTER TABLE … ADD
    /// COLUMN` appends `, <column>` after the last one). Only their column order is the order
    /// Core Data gives a new table.
    public var freshTables: Set<String> = []
    public var indexes: Set<Index>
    /// `Z_PRIMARYKEY` rows as `Z_ENT Z_NAME Z_SUPER`.
    public var primaryKeys: [String]
    /// `NSPersistenceFrameworkVersion` from the metadata (0 when absent): the Core Data that wrote it.
    public var framework: Int = 0

    /// Reads the schema of the store at `path` with plain SQL.
    public static func read(_ path: String) throws -> SchemaSnapshot {
        try DatabaseQueue(path: path).read { db in
            var tables: [String: [String: String]] = [:]
            var order: [String: [String]] = [:]
            var fresh: Set<String> = []
            for row in try Row.fetchAll(
                db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            {
                let table: String = row["name"]
                let sql: String = row["sql"] ?? ""
                var columns: [String: String] = [:]
                for column in try Row.fetchAll(db, sql: "PRAGMA table_info(\"\(table)\")") {
                    columns[column["name"]] = column["type"]
                    order[table, default: []].append("\(column["name"] as String) \(column["type"] as String)")
                }
                tables[table] = columns
                if !sql.hasPrefix("CREATE TABLE \""), !sql.contains(" , ") { fresh.insert(table) }
            }
            var indexes: Set<Index> = []
            // Indexes SQLite made for a table's UNIQUE constraint (`sqlite_autoindex_…`, no SQL) are
            // read too: older Core Data wrote uniqueness constraints that way, newer as CREATE UNIQUE INDEX.
            for row in try Row.fetchAll(db, sql: "SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index'") {
                let name: String = row["name"]
                let columns = try Row.fetchAll(db, sql: "PRAGMA index_xinfo(\"\(name)\")")
                    .filter { ($0["key"] as Int) == 1 }
                    .map {
                        "\($0["name"] as String? ?? "?") \($0["coll"] as String? ?? "") \(($0["desc"] as Int) == 1 ? "DESC" : "ASC")"
                    }
                let sql: String? = row["sql"]
                indexes.insert(
                    Index(
                        name: name, table: row["tbl_name"], columns: columns,
                        isUnique: sql.map { $0.uppercased().hasPrefix("CREATE UNIQUE") } ?? true))
            }
            let keys = try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT")
                .map { "\($0[0] as Int) \($0[1] as String) \($0[2] as Int)" }
            let plist = try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA") ?? Data()
            let metadata = (try? PropertyListSerialization.propertyList(from: plist, format: nil)) as? [String: Any]
            let framework = (metadata?["NSPersistenceFrameworkVersion"] as? NSNumber)?.intValue ?? 0
            return SchemaSnapshot(
                tables: tables, columnOrder: order, freshTables: fresh, indexes: indexes, primaryKeys: keys,
                framework: framework)
        }
    }
}
