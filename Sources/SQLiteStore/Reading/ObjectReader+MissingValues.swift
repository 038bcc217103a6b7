internal import GRDB
import ObjectModel

extension ObjectReader {
    /// How many instances of `entity` itself (not its subentities) lack property `name`: an
    /// attribute or to-one that is NULL, a to-many with no destination. A migration checks this
    /// before a property becomes required, as Core Data does.
    package func countLacking(_ name: String, of entity: String) throws -> Int {
        let q = SQLIdentifier.quote
        guard let number = layout.numbering.number(of: entity), let table = layout.table(for: entity) else {
            throw StoreError(
                .unknownEntity, path: path, "the model has no entity \(entity)",
                fix: "use one of: \(layout.model.entities.map(\.name).joined(separator: ", "))")
        }
        let rows = "FROM \(t(table.name)) s WHERE s.Z_ENT = \(number)"
        if let column = layout.column(entity: entity, property: name), column.role != .foreignEntity,
            column.role != .orderKey
        {
            return try Int.fetchOne(db, sql: "SELECT count(*) \(rows) AND s.\(q(column.name)) IS NULL") ?? 0
        }
        switch layout.storage(entity: entity, relationship: name) {
        case let .foreignKey(_, column, _)?:
            return try Int.fetchOne(db, sql: "SELECT count(*) \(rows) AND s.\(q(column)) IS NULL") ?? 0
        case let .inverseForeignKey(destination, column, _, _)?:
            return try Int.fetchOne(
                db,
                sql:
                    """
                    SELECT count(*) \(rows) AND NOT EXISTS (SELECT 1 FROM \(t(destination)) d WHERE d.\(q(column)) \
                    = s.Z_PK)
                    """
            ) ?? 0
        case let .joinTable(join, sourceColumn, _, _)?:
            return try Int.fetchOne(
                db,
                sql:
                    """
                    SELECT count(*) \(rows) AND NOT EXISTS (SELECT 1 FROM \(t(join.name)) j WHERE \
                    j.\(q(sourceColumn)) = s.Z_PK)
                    """
            )
                ?? 0
        case nil:
            throw StoreError(
                .unknownProperty, path: path, "entity \(entity) has no stored property \(name)",
                fix: "check the property's name")
        }
    }
}
