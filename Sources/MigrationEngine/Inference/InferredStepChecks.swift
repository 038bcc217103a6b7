import ObjectModel
import SQLiteStore

/// What an inferred step checks before it commits: the schema is exactly a fresh store's, and
/// every surviving entity has exactly the rows it had.
enum InferredStepChecks {
    /// Rows per concrete entity, read inside the step's transaction.
    static func counts(_ connection: StoreConnection, layout: StoreLayout, entities: [String]) throws -> [String: Int] {
        let reader = ObjectReader(connection: connection, layout: layout, path: connection.path)
        var result: [String: Int] = [:]
        for entity in entities { result[entity] = try reader.count(of: entity, includingSubentities: false) }
        return result
    }

    /// Every destination table and join table has exactly the columns (names and types, in any
    /// order) a fresh store of the destination model has, and every Core Data index exists.
    static func verifySchema(_ connection: StoreConnection, layout: StoreLayout, path: String) throws {
        let expected =
            layout.tables.map { table in
                (
                    table.name,
                    [("Z_PK", "INTEGER"), ("Z_ENT", "INTEGER"), ("Z_OPT", "INTEGER")]
                        + table.columns.map { ($0.name, $0.sqlType) }
                )
            }
            + layout.joinTables.map { join in (join.name, join.columns.map { ($0, "INTEGER") }) }
        for (table, columns) in expected {
            let found = try connection.columns(of: table)
            // `ADD COLUMN` appends, so the order may differ from a fresh store's; rows are read by name.
            let matches =
                found.count == columns.count
                && Set(found.map { "\($0.name) \($0.type.uppercased())" })
                    == Set(columns.map { "\($0.0) \($0.1.uppercased())" })
            guard matches else {
                throw MigrationError(
                    .verification,
                    """
                    \(path): after the step, table \(table) has columns \
                    \(found.map { "\($0.name) \($0.type)" }.joined(separator: ", ")) but the destination model \
                    needs \(columns.map { "\($0.0) \($0.1)" }.joined(separator: ", "))
                    """,
                    fix: "the store is unchanged (the step rolled back); report this with both model versions")
            }
        }
        let indexes = try connection.schemaObjects().indexNames
        if let missing = StoreSchema(layout: layout).indexes.first(where: { !indexes.contains($0.name) }) {
            throw MigrationError(
                .verification, "\(path): after the step, index \(missing.name) on \(missing.table) is missing",
                fix: "the store is unchanged (the step rolled back); report this with both model versions")
        }
    }

    /// Every surviving entity has exactly the rows it had; returns the rows of every destination
    /// entity (those no source maps to start empty, and are counted all the same), read in the
    /// step's transaction. Entities in `tablesKeepingRows` (tables no statement of the step added
    /// rows to or deleted rows from, renumbered onto their own numbers at most:
    /// ``LightweightSQL/tablesKeepingRows(methods:)``) are not read again: their rows are the ones
    /// their origins had before the step. Nor are those of a table in `rowsCopied` (a rebuilt
    /// table whose copy gives each origin's rows its entity's number:
    /// ``LightweightSQL/tablesCopiedWhole(methods:)``) whose copy inserted exactly the rows its
    /// entities' origins had; a copy that inserted any other number is counted, and the count
    /// says which entity differs.
    @discardableResult
    static func verifyCounts(
        _ connection: StoreConnection, inference: InferredMapping, layout: StoreLayout, rowsBefore: [String: Int],
        tablesKeepingRows: Set<String> = [], rowsCopied: [String: Int] = [:]
    ) throws -> [String: Int] {
        let tableOf = { (entity: String) in layout.table(for: entity)?.name }
        let copiedWhole = Set(
            rowsCopied.filter { table, copied in
                let origins = inference.entitySources.filter { tableOf($0.key) == table }.map(\.value)
                return origins.allSatisfy { rowsBefore[$0] != nil }
                    && origins.reduce(0) { $0 + rowsBefore[$1, default: 0] } == copied
            }.keys)
        let kept = inference.entitySources.filter { entity, origin in
            tableOf(entity).map { tablesKeepingRows.contains($0) || copiedWhole.contains($0) } == true
                && rowsBefore[origin] != nil
        }
        var after = try counts(
            connection, layout: layout, entities: inference.entitySources.keys.filter { kept[$0] == nil })
        for (entity, origin) in kept { after[entity] = rowsBefore[origin] }
        for (entity, origin) in inference.entitySources {
            let count = after[entity, default: 0]
            guard count == rowsBefore[origin, default: 0] else {
                throw MigrationError(
                    .verification,
                    """
                    \(entity) has \(count) rows after the migration but \(origin) had \
                    \(rowsBefore[origin, default: 0])
                    """,
                    fix: "the source is untouched; report this with both model versions")
            }
        }
        let others = layout.model.entities.map(\.name).filter { after[$0] == nil }
        return after.merging(try counts(connection, layout: layout, entities: others)) { verified, _ in verified }
    }
}
