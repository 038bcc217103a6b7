import ObjectModel

/// The SQL that creates a store for a ``StoreLayout``: entity tables, join tables, the
/// bookkeeping tables and Core Data's indexes, with Core Data's names.
package struct StoreSchema: Sendable {
    /// One index.
    package struct Index: Hashable, Sendable {
        /// The index name.
        package var name: String
        /// The indexed table.
        package var table: String
        /// Column expressions, in order (`ZNAME COLLATE BINARY ASC` for fetch indexes).
        package var columns: [String]
        /// A uniqueness constraint's index.
        package var isUnique: Bool

        /// The statement that creates the index, as SQLite keeps it in `sqlite_master`.
        package var statement: SQLStatement {
            let q = SQLIdentifier.quote
            return SQLStatement(
                """
                CREATE \(isUnique ? "UNIQUE " : "")INDEX \(q(name)) ON \(q(table)) \
                (\(columns.joined(separator: ", ")))
                """
            )
        }

        /// The statement that drops the index from the store `main`, if it is there.
        package var dropStatement: SQLStatement {
            SQLStatement("DROP INDEX IF EXISTS main.\(SQLIdentifier.quote(name))")
        }
    }

    /// The layout this schema creates.
    package let layout: StoreLayout
    /// Every index Core Data would create.
    package let indexes: [Index]

    /// The schema of `layout`.
    package init(layout: StoreLayout) {
        self.layout = layout
        indexes = Self.indexes(for: layout)
    }

    /// `CREATE TABLE` and `CREATE INDEX` statements, bookkeeping tables included.
    package var statements: [String] {
        let q = SQLIdentifier.quote
        var sql = layout.tables.map { table in
            let columns =
                ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"]
                + table.columns.map { "\(q($0.name)) \($0.sqlType)" }
            return "CREATE TABLE \(q(table.name)) ( \(columns.joined(separator: ", ")) )"
        }
        sql += layout.joinTables.map { join in
            let keys = join.sides.map(\.column) + (join.sourceColumn.map { [$0] } ?? [])
            let columns = join.columns.map { "\(q($0)) INTEGER" }
            return
                """
                CREATE TABLE \(q(join.name)) ( \(columns.joined(separator: ", ")), PRIMARY KEY \
                (\(keys.map(q).joined(separator: ", "))) )
                """
        }
        sql += indexes.map(\.statement.sql)
        sql += [
            "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
            "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
        ]
        return sql
    }

    private static func indexes(for layout: StoreLayout) -> [Index] {
        layout.tables.flatMap { table in
            entityIndex(table, layout) + columnIndexes(table, layout) + fetchIndexes(table, layout)
        } + layout.joinTables.flatMap(joinIndex)
    }

    /// A table that holds a hierarchy of several entities is indexed by entity.
    private static func entityIndex(_ table: StoreLayout.Table, _ layout: StoreLayout) -> [Index] {
        guard layout.numbering.numbers(inHierarchyOf: layout.numbering.number(of: table.rootEntity) ?? 0).count > 1
        else { return [] }
        return [Index(name: "\(table.name)_Z_ENT_INDEX", table: table.name, columns: ["Z_ENT"], isUnique: false)]
    }

    /// Every to-one key, and every attribute marked `indexed`.
    private static func columnIndexes(_ table: StoreLayout.Table, _ layout: StoreLayout) -> [Index] {
        let q = SQLIdentifier.quote
        var result: [Index] = []
        for column in table.columns {
            if column.role == .foreignKey {
                result.append(
                    Index(
                        name: "\(table.name)_\(column.name)_INDEX", table: table.name, columns: [q(column.name)],
                        isUnique: false))
            }
            // An attribute marked `indexed` is a one-element fetch index to Core Data since
            // framework 847 (Wire's 2.39 store: `Z_User_normalizedName`; framework 754 named it
            // `ZUSER_ZNORMALIZEDNAME_INDEX`). Xcode's model compiler marks `indexed` the attribute
            // a one-element fetch index names, so that attribute gets this index beside the fetch
            // index's own (every one-element fetch index of DuckDuckGo's stores: `byUUID` makes
            // `Z_BookmarkEntity_byUUID` and `Z_BookmarkEntity_uuid`; the compiled model's
            // `NSIsIndexed` says so, where the XML has no `indexed`).
            let entity = layout.model.entity(named: column.entity)
            let attribute = entity?.attributes.first { $0.name == column.property }
            // A fetch index named like its attribute is that index (ReadingList's `Book.googleBooksId`).
            let indexedAttribute =
                (attribute?.isIndexed == true
                    || entity?.fetchIndexes.contains { $0.elements.map(\.property) == [column.property] } == true)
                && entity?.fetchIndexes.contains { $0.name == column.property } != true
            if indexedAttribute && attribute != nil && column.role != .orderKey && column.role != .foreignKey {
                result.append(
                    Index(
                        name: "Z_\(column.entity)_\(column.property)", table: table.name,
                        columns: ["\(q(column.name)) COLLATE BINARY ASC"], isUnique: false))
            }
        }
        return result
    }

    /// The compound indexes, fetch indexes and uniqueness constraints of the table's entities.
    private static func fetchIndexes(_ table: StoreLayout.Table, _ layout: StoreLayout) -> [Index] {
        let q = SQLIdentifier.quote
        var result: [Index] = []
        for number in layout.numbering.numbers(inHierarchyOf: layout.numbering.number(of: table.rootEntity) ?? 0) {
            guard let name = layout.numbering.name(of: number), let entity = layout.model.entity(named: name) else {
                continue
            }
            func columns(_ properties: [String]) -> [String] {
                properties.compactMap { layout.column(entity: name, property: $0)?.name }
            }
            // Compound indexes too are fetch indexes (same evidence: `Z_Conversation_internalIsArchived_lastModifiedDate`).
            // A compiled model mirrors each fetch index of several elements in its compound
            // indexes (CoreDataPlus's `SampleModel2.mom`: `[[maker, numberPlate]]` beside the fetch
            // index `byMakerAndNumberPlate`), and no store has an index made from the mirror: an
            // entity with fetch indexes has its compound indexes through them.
            for compound in entity.compoundIndexes where entity.fetchIndexes.isEmpty {
                result.append(
                    Index(
                        name: (["Z", name] + compound).joined(separator: "_"), table: table.name,
                        columns: columns(compound).map { "\(q($0)) COLLATE BINARY ASC" }, isUnique: false))
            }
            for index in entity.fetchIndexes {
                let expressions = index.elements.compactMap { element in
                    layout.column(entity: name, property: element.property).map {
                        "\(q($0.name)) COLLATE BINARY \(element.isAscending ? "ASC" : "DESC")"
                    }
                }
                // A to-many has no column, so an element naming one indexes nothing (WordPress
                // 98–109 hold 108 such fetch indexes, each of the one to-many): the index is made
                // on the other elements, and not at all when none is left.
                guard !expressions.isEmpty else { continue }
                result.append(
                    Index(name: "Z_\(name)_\(index.name)", table: table.name, columns: expressions, isUnique: false))
            }
            for constraint in entity.uniquenessConstraints {
                result.append(
                    Index(
                        name: "Z_\(name)_UNIQUE_\(constraint.joined(separator: "_"))", table: table.name,
                        columns: columns(constraint).map { "\(q($0)) COLLATE BINARY ASC" }, isUnique: true))
            }
        }
        return result
    }

    /// A many-to-many's join table, indexed by its second column.
    private static func joinIndex(_ join: JoinTable) -> [Index] {
        guard join.sides.count == 2 else { return [] }
        let (first, second) = (join.sides[0].column, join.sides[1].column)
        return [
            Index(
                name: "\(join.name)_\(second)_INDEX", table: join.name,
                columns: [SQLIdentifier.quote(second), SQLIdentifier.quote(first)], isUnique: false)
        ]
    }
}
