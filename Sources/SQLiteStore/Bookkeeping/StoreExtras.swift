internal import GRDB

/// What a store file holds beyond its model's tables, read from `sqlite_master`: Core Data's
/// persistent history, an app's own tables, and indexes or triggers on the model's tables that
/// neither Core Data's schema nor its derived attributes account for. A plan names each with
/// what its steps do to it, so that nothing goes without being said.
package struct StoreExtras: Sendable, Equatable {
    /// Persistent history (`NSPersistentHistoryTrackingKey`): its transactions and changes.
    package struct History: Sendable, Equatable {
        package var transactions: Int
        package var changes: Int
    }

    /// A table that is not the model's, with its row count.
    package struct Table: Sendable, Equatable {
        package var name: String
        package var rows: Int
    }

    /// The history, when the store keeps one.
    package var history: History?
    /// Tables that are neither the model's, Core Data's bookkeeping, nor its history.
    package var appTables: [Table]
    /// Indexes and triggers on the model's tables that Core Data's schema does not make.
    package var appObjects: [SchemaObjects.Object]
    /// An app's views, and its triggers on tables that are not the model's (`Z_METADATA`,
    /// `Z_PRIMARYKEY`, history, its own tables): an inferred step keeps them, set aside while
    /// it writes (``SetAsideObjects``).
    package var keptObjects: [SchemaObjects.Object] = []

    /// Core Data's persistent-history tables (rows 16001–16003 of `Z_PRIMARYKEY`).
    package static let historyTables: Set<String> = ["ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING"]
    /// Core Data's own tables besides the model's.
    static let bookkeepingTables: Set<String> = ["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"]

    /// Whether the store holds nothing beyond its model.
    package var isEmpty: Bool { history == nil && appTables.isEmpty && appObjects.isEmpty && keptObjects.isEmpty }
}

extension StoreConnection {
    /// What the store holds beyond `layout`, its model's tables.
    package func extras(beyond layout: StoreLayout) throws -> StoreExtras {
        try converting {
            let tables = try String.fetchAll(
                db,
                sql:
                    """
                    SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE \
                    '\\'
                    """
            )
            let model = Set(layout.tables.map(\.name) + layout.joinTables.map(\.name)).map { $0.uppercased() }
            let known = Set(model).union(StoreExtras.bookkeepingTables).union(StoreExtras.historyTables)
            var history: StoreExtras.History?
            if Set(tables.map { $0.uppercased() }).isSuperset(of: ["ACHANGE", "ATRANSACTION"]) {
                history = .init(
                    transactions: try Int.fetchOne(db, sql: "SELECT count(*) FROM main.ATRANSACTION") ?? 0,
                    changes: try Int.fetchOne(db, sql: "SELECT count(*) FROM main.ACHANGE") ?? 0)
            }
            let appTables = try tables.filter { !known.contains($0.uppercased()) }.sorted().map { name in
                StoreExtras.Table(
                    name: name,
                    rows: try Int.fetchOne(db, sql: "SELECT count(*) FROM main.\(SQLIdentifier.quote(name))") ?? 0)
            }
            let coreData = Set(StoreSchema(layout: layout).indexes.map { $0.name.uppercased() })
            let modelTables = Set(model)
            let appObjects = try schemaObjects().objects.filter { object in
                modelTables.contains(object.table.uppercased()) && !coreData.contains(object.name.uppercased())
                    && !DerivedAttributeTriggers.isDerivedAttributeTrigger(object.name)
                    // Core Data's own names for indexes it made under another layout or era.
                    && !object.isNamedAsCoreData
            }
            let keptObjects = try appTriggersAndViews().filter {
                $0.type == "view" || !modelTables.contains($0.table.uppercased())
            }
            return StoreExtras(history: history, appTables: appTables, appObjects: appObjects, keptObjects: keptObjects)
        }
    }
}
