import ObjectModel

/// The SQL that creates a store for a ``StoreLayout``: entity tables, join tables, the
/// bookkeeping tables and Core Data's indexes, with Core Data's names.
public struct StoreSchema: Sendable {
    /// One index.
    public struct Index: Hashable, Sendable {
        /// The index name.
        public var name: String
        /// The indexed table.
        public var table: String
        /// Column expressions, in order (`ZNAME COLLATE BINARY ASC` for fetch indexes).
        public var columns: [String]
        /// A uniqueness constraint's index.
        public var isUnique: Bool
    }

    /// The layout this schema creates.
    public let layout: StoreLayout
    /// Every index Core Data would create.
    public let indexes: [Index]

    /// The schema of `layout`.
    public init(layout: StoreLayout) {
        self.layout = layout
        indexes = Self.indexes(for: layout)
    }

    /// `CREATE TABLE` and `CREATE INDEX` statements, bookkeeping tables included.
    public var statements: [String] {
        let q = ColumnNaming.quote
        var sql = layout.tables.map { table in
            let columns = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"]
                + table.columns.map { "\(q($0.name)) \($0.sqlType)" }
            return "CREATE TABLE \(q(table.name)) ( \(columns.joined(separator: ", ")) )"
        }
        sql += layout.joinTables.map { join in
            let keys = join.sides.map(\.column) + (join.sourceColumn.map { [$0] } ?? [])
            let columns = join.columns.map { "\(q($0)) INTEGER" }
            return "CREATE TABLE \(q(join.name)) ( \(columns.joined(separator: ", ")), PRIMARY KEY (\(keys.map(q).joined(separator: ", "))) )"
        }
        sql += indexes.map { index in
            "CREATE \(index.isUnique ? "UNIQUE " : "")INDEX \(q(index.name)) ON \(q(index.table)) (\(index.columns.joined(separator: ", ")))"
        }
        sql += [
            "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
            "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
        ]
        return sql
    }

    private static func indexes(for layout: StoreLayout) -> [Index] {
        let q = ColumnNaming.quote
        let model = layout.model
        var result: [Index] = []
        for table in layout.tables {
            let entities = layout.numbering.numbers(inHierarchyOf: layout.numbering.number(of: table.rootEntity) ?? 0)
            if entities.count > 1 {
                result.append(Index(name: "\(table.name)_Z_ENT_INDEX", table: table.name, columns: ["Z_ENT"], isUnique: false))
            }
            for column in table.columns {
                if column.role == .foreignKey {
                    result.append(Index(name: "\(table.name)_\(column.name)_INDEX", table: table.name, columns: [q(column.name)], isUnique: false))
                }
                // An attribute marked `indexed` is a one-element fetch index to Core Data since
                // framework 977 (Wire's 2.90 store: `Z_User_normalizedName`; framework 641 named
                // it `ZUSER_ZNORMALIZEDNAME_INDEX`).
                let indexedAttribute = model.entity(named: column.entity)?.attributes.first { $0.name == column.property }?.isIndexed == true
                if indexedAttribute && column.role != .orderKey && column.role != .foreignKey {
                    result.append(Index(name: "Z_\(column.entity)_\(column.property)", table: table.name,
                                        columns: ["\(q(column.name)) COLLATE BINARY ASC"], isUnique: false))
                }
            }
            for number in entities {
                guard let name = layout.numbering.name(of: number), let entity = model.entity(named: name) else { continue }
                func columns(_ properties: [String]) -> [String] {
                    properties.compactMap { layout.column(entity: name, property: $0)?.name }
                }
                // Compound indexes too are fetch indexes (same evidence: `Z_Conversation_internalIsArchived_lastModifiedDate`).
                for compound in entity.compoundIndexes {
                    result.append(Index(name: (["Z", name] + compound).joined(separator: "_"), table: table.name,
                                        columns: columns(compound).map { "\(q($0)) COLLATE BINARY ASC" }, isUnique: false))
                }
                for index in entity.fetchIndexes {
                    let expressions = index.elements.compactMap { element in
                        layout.column(entity: name, property: element.property).map {
                            "\(q($0.name)) COLLATE BINARY \(element.isAscending ? "ASC" : "DESC")"
                        }
                    }
                    result.append(Index(name: "Z_\(name)_\(index.name)", table: table.name, columns: expressions, isUnique: false))
                }
                for constraint in entity.uniquenessConstraints {
                    result.append(Index(name: "Z_\(name)_UNIQUE_\(constraint.joined(separator: "_"))", table: table.name,
                                        columns: columns(constraint).map { "\(q($0)) COLLATE BINARY ASC" }, isUnique: true))
                }
            }
        }
        for join in layout.joinTables where join.sides.count == 2 {
            let (first, second) = (join.sides[0].column, join.sides[1].column)
            result.append(Index(name: "\(join.name)_\(second)_INDEX", table: join.name, columns: [q(second), q(first)], isUnique: false))
        }
        return result
    }
}
