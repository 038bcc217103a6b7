internal import GRDB

extension ObjectReader {
    /// Which end of the matches a look-up returns, in `Z_PK` order.
    public enum LookupEnd: Sendable {
        /// The lowest key first.
        case first
        /// The highest key first.
        case last
    }

    /// The IDs of instances of `entity` (and its subentities) whose attribute `name` equals
    /// `value` (`nil` matching no value, as Core Data's `== nil`), from the lowest `Z_PK` or, with
    /// `.last`, from the highest; at most `limit`. Through the reader's ``LookupIndexes`` the
    /// search costs O(log n) and each match O(1), however large the table: a migration policy
    /// makes this fetch once per row.
    public func matchingObjectIDs(of entity: String, where name: String, equals value: StoreValue, from end: LookupEnd = .first,
                                  limit: Int? = nil) throws -> [ObjectID] {
        guard let number = layout.numbering.number(of: entity), let table = layout.table(for: entity) else {
            throw StoreError(.unknownEntity, path: path, "the model has no entity \(entity)",
                             fix: "use one of: \(layout.model.entities.map(\.name).joined(separator: ", "))")
        }
        guard let (attribute, column) = layout.attributeColumns(of: entity).first(where: { $0.attribute.name == name }),
              let converted = value.databaseValue(for: attribute) else {
            throw StoreError(.unknownProperty, path: path, "entity \(entity) has no stored attribute \(name) that can equal \(value)",
                             fix: "look up by a stored attribute of \(entity), with a value of its type")
        }
        let entities = layout.numbering.numbers(inHierarchyOf: number).map(String.init).joined(separator: ",")
        let order = (end == .last ? " DESC" : "") + (limit.map { " LIMIT \(max($0, 0))" } ?? "")
        // An indexed copy is read in key order and joined back by key: no sort, however many match.
        let sql = if case .copy(let copy)? = try lookups?.path(table: table.name, column: column.name) {
            "SELECT t.Z_PK, t.Z_ENT FROM \(copy) c CROSS JOIN \(t(table.name)) t ON t.Z_PK = c.key WHERE c.value IS ? AND t.Z_ENT IN (\(entities)) ORDER BY c.key\(order)"
        } else {
            "SELECT Z_PK, Z_ENT FROM \(t(table.name)) WHERE \(ColumnNaming.quote(column.name)) IS ? AND Z_ENT IN (\(entities)) ORDER BY Z_PK\(order)"
        }
        return try Row.fetchAll(db.cachedStatement(sql: sql), arguments: [converted]).map { row in
            guard let key = Int64.fromDatabaseValue(row[0]), let entityNumber = Int.fromDatabaseValue(row[1]) else {
                throw StoreError(.corrupt, path: path, "a row of \(table.name) has Z_PK \(row[0] as DatabaseValue) and Z_ENT \(row[1] as DatabaseValue), which are not integers",
                                 fix: "restore the store from a backup")
            }
            return ObjectID(entityNumber: entityNumber, primaryKey: key)
        }
    }
}
