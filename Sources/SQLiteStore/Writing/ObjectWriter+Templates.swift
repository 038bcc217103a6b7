internal import GRDB
import ObjectModel

extension ObjectWriter {
    /// A prepared insert for bulk loading: one entity, a fixed list of attribute columns and
    /// to-one relationships, so each row costs one statement execution and no lookups.
    package struct InsertTemplate {
        let entity: String
        let entityNumber: Int
        let root: Int
        let table: String
        let sql: String
        let hasEntityColumn: [Bool]
    }

    /// Prepares inserts of `entity` setting `attributes` and the to-one `relationships`, in order.
    package func template(for entity: String, attributes: [String], relationships: [String]) throws -> InsertTemplate {
        let (description, table, number) = try resolve(entity)
        let root = layout.numbering.number(of: layout.model.rootEntity(of: description).name) ?? number
        var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
        for name in attributes {
            guard let column = layout.column(entity: entity, property: name) else {
                throw StoreError(
                    .unknownProperty, path: path, "entity \(entity) has no stored attribute \(name)",
                    fix: "check the model")
            }
            columns.append(SQLIdentifier.quote(column.name))
        }
        var hasEntityColumn: [Bool] = []
        for name in relationships {
            guard case let .foreignKey(_, column, entityColumn)? = layout.storage(entity: entity, relationship: name)
            else {
                throw StoreError(
                    .unknownProperty, path: path, "entity \(entity) has no to-one relationship \(name)",
                    fix: "check the model")
            }
            columns.append(SQLIdentifier.quote(column))
            if let entityColumn { columns.append(SQLIdentifier.quote(entityColumn)) }
            hasEntityColumn.append(entityColumn != nil)
        }
        let sql =
            """
            INSERT INTO \(t(table.name)) (\(columns.joined(separator: ", "))) VALUES \
            (\(columns.map { _ in "?" }.joined(separator: ", ")))
            """
        return InsertTemplate(
            entity: entity, entityNumber: number, root: root, table: table.name, sql: sql,
            hasEntityColumn: hasEntityColumn)
    }

    /// Inserts one row with `template`: attribute values already in storage form (see
    /// ``StoreValue/sqlValue(for:)-(AttributeDescription)``), then one destination (or nil) per
    /// to-one relationship.
    @discardableResult
    package func insert(_ template: InsertTemplate, values: [SQLValue], destinations: [ObjectID?]) throws -> ObjectID {
        try writeQueuedInserts()
        let key = try nextKey(root: template.root, table: template.table)
        var arguments: [SQLValue] = [.integer(key), SQLValue(template.entityNumber), 1] + values
        for (destination, hasEntity) in zip(destinations, template.hasEntityColumn) {
            arguments.append(destination.map { .integer($0.primaryKey) } ?? .null)
            if hasEntity { arguments.append(destination.map { SQLValue($0.entityNumber) } ?? .null) }
        }
        try db.cachedStatement(sql: template.sql).run(arguments)
        otherInsertedCounts[template.entity, default: 0] += 1
        return ObjectID(entityNumber: template.entityNumber, primaryKey: key)
    }
}
