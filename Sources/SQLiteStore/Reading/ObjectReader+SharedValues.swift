internal import GRDB

extension ObjectReader {
    /// How many rows of `entity`'s table share their values of the attributes `names` with an
    /// earlier row (each value's rows but one; a row with a NULL among them shares nothing, as in
    /// SQLite's unique indexes): the rows a uniqueness constraint's index would refuse.
    package func countSharingValues(_ names: [String], of entity: String) throws -> Int {
        guard let table = layout.table(for: entity) else {
            throw StoreError(
                .unknownEntity, path: path, "the model has no entity \(entity)",
                fix: "use one of: \(layout.model.entities.map(\.name).joined(separator: ", "))")
        }
        let columns = try names.map { name -> String in
            guard let column = layout.column(entity: entity, property: name) else {
                throw StoreError(
                    .unknownProperty, path: path, "entity \(entity) has no stored attribute \(name)",
                    fix: "name an attribute of \(entity)")
            }
            return SQLIdentifier.quote(column.name)
        }
        let present = columns.map { "\($0) IS NOT NULL" }.joined(separator: " AND ")
        let groups =
            """
            SELECT count(*) AS c FROM \(t(table.name)) WHERE \(present) GROUP BY \
            \(columns.joined(separator: ", ")) HAVING c > 1
            """
        return try Int.fetchOne(db, sql: "SELECT coalesce(sum(c - 1), 0) FROM (\(groups))") ?? 0
    }
}
