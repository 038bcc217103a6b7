import Foundation
internal import GRDB

/// The indexes and triggers a store's schema holds, as `sqlite_master` lists them: what a step
/// that changes tables in place must drop, or may keep. Read from a store, or predicted for a
/// store Chrysalis itself creates or has migrated (``init(predictedFor:)``).
package struct SchemaObjects: Hashable, Sendable {
    /// One index or trigger written in SQL.
    package struct Object: Hashable, Sendable {
        /// `index` or `trigger`.
        package var type: String
        /// Its name.
        package var name: String
        /// The statement that created it, as SQLite keeps it.
        package var sql: String
        /// The table it belongs to.
        package var table: String

        /// An object of the schema.
        package init(type: String, name: String, sql: String, table: String) {
            (self.type, self.name, self.sql, self.table) = (type, name, sql, table)
        }

        /// The columns an index covers, as its statement names them (`ZNAME COLLATE BINARY ASC`
        /// is `ZNAME`).
        package var indexedColumns: [String] {
            guard type == "index", let open = sql.range(of: " ON ")?.upperBound,
                let start = sql[open...].firstIndex(of: "("), let end = sql.lastIndex(of: ")"), start < end
            else { return [] }
            return sql[sql.index(after: start)..<end].split(separator: ",").map { part in
                String(part.trimmingCharacters(in: .whitespaces).prefix { $0 != " " }.filter { $0 != "\"" })
            }
        }

        /// Whether the index has a name Core Data gives its indexes, in any of its eras: `Z_…`
        /// (fetch indexes, uniqueness constraints, join tables, whatever the join table was called
        /// when it was made), `ZTABLE_ZCOLUMN_INDEX` (to-one keys; `indexed` attributes before
        /// framework 847) or `ZTABLE_ZA_ZB` (a compound index before framework 847, Wire's
        /// `ZCONVERSATION_ZINTERNALISARCHIVED_ZLASTMODIFIEDDATE`). Core Data never renames an index,
        /// so a store it migrated keeps every era's names (`../shared/fixtures/coredata`: Wire's
        /// `ZADDRESSBOOKENTRY_ZLOCALIDENTIFIER_INDEX`, made by framework 752, is in the 2.101 store).
        package var isNamedAsCoreData: Bool {
            let upper = name.uppercased()
            guard type == "index", upper.hasPrefix("Z") else { return false }
            return name.hasPrefix("Z_") || upper.hasSuffix("_INDEX")
                || upper == ([table] + indexedColumns).joined(separator: "_").uppercased()
        }
    }

    /// Indexes and triggers with SQL (SQLite's automatic indexes have none).
    package var objects: [Object]
    /// The name of every index, automatic ones included.
    package var indexNames: Set<String>
    /// The name of every table, in upper case (SQLite's names are case-insensitive).
    package var tables: Set<String>

    /// A schema of these objects.
    package init(objects: [Object], indexNames: Set<String>, tables: Set<String>) {
        self.objects = objects
        self.indexNames = indexNames
        self.tables = tables
    }

    /// What a store of `layout` holds once Chrysalis has made or migrated it: Core Data's
    /// indexes and its derived attributes' triggers (a step drops every other trigger).
    package init(predictedFor layout: StoreLayout) {
        let indexes = StoreSchema(layout: layout).indexes
        objects = indexes.map { Object(type: "index", name: $0.name, sql: $0.statement.sql, table: $0.table) }
        for derivation in DerivedAttributeTriggers(layout: layout).derivations {
            for (name, (statement, table)) in zip(
                derivation.triggerNames, zip(derivation.triggers, derivation.triggerTables))
            {
                objects.append(Object(type: "trigger", name: name, sql: statement.sql, table: table))
            }
        }
        indexNames = Set(indexes.map(\.name))
        tables = Set((layout.tables.map(\.name) + layout.joinTables.map(\.name)).map { $0.uppercased() })
    }
}

extension StoreConnection {
    /// The store's indexes and triggers, as they are.
    package func schemaObjects() throws -> SchemaObjects {
        try converting {
            let objects = try Row.fetchAll(
                db,
                sql:
                    """
                    SELECT type, name, sql, tbl_name FROM main.sqlite_master WHERE type IN ('index', 'trigger') \
                    AND sql IS NOT NULL
                    """
            )
            .map { row in SchemaObjects.Object(type: row[0], name: row[1], sql: row[2], table: row[3]) }
            let names = try String.fetchAll(db, sql: "SELECT name FROM main.sqlite_master WHERE type = 'index'")
            let tables = try String.fetchAll(db, sql: "SELECT upper(name) FROM main.sqlite_master WHERE type = 'table'")
            return SchemaObjects(objects: objects, indexNames: Set(names), tables: Set(tables))
        }
    }

    /// The columns of `table` in the store, with their declared types, in table order.
    package func columns(of table: String) throws -> [(name: String, type: String)] {
        try converting {
            try Row.fetchAll(db, sql: "SELECT name, type FROM pragma_table_info(?)", arguments: [table]).map {
                ($0[0] as String, $0[1] as String)
            }
        }
    }
}
