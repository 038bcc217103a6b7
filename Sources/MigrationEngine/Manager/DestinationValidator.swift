import ObjectModel
import SQLiteStore

/// Stage 3: the destination model's rules, checked with SQL over the destination store —
/// required attributes and to-ones set, to-many counts within their bounds.
struct DestinationValidator {
    let manager: MigrationManager

    func validate(_ didCheckEntity: () -> Void) throws {
        let layout = manager.destinationLayout
        let model = layout.model
        let q = ColumnNaming.quote
        for entity in model.entities {
            defer { didCheckEntity() }
            guard !entity.isAbstract, let number = layout.numbering.number(of: entity.name), let table = layout.table(for: entity.name) else { continue }
            for attribute in model.allAttributes(of: entity) where !attribute.isOptional && !attribute.isTransient {
                guard let column = layout.column(entity: entity.name, property: attribute.name) else { continue }
                if let key = try manager.connection.integer(SQLStatement("SELECT Z_PK FROM main.\(q(table.name)) WHERE Z_ENT = ? AND \(q(column.name)) IS NULL LIMIT 1", [SQLValue(number)])) {
                    throw failure(entity.name, key, attribute.name, "is required but has no value")
                }
            }
            for relationship in model.allRelationships(of: entity) where !relationship.isTransient {
                try check(relationship, of: entity, number: number, table: table.name)
            }
        }
    }

    private func check(_ relationship: RelationshipDescription, of entity: EntityDescription, number: Int, table: String) throws {
        let q = ColumnNaming.quote
        switch manager.destinationLayout.storage(entity: entity.name, relationship: relationship.name) {
        case let .foreignKey(_, column, _)? where !relationship.isOptional:
            if let key = try manager.connection.integer(SQLStatement("SELECT Z_PK FROM main.\(q(table)) WHERE Z_ENT = ? AND \(q(column)) IS NULL LIMIT 1", [SQLValue(number)])) {
                throw failure(entity.name, key, relationship.name, "is required but points to nothing")
            }
        case let .inverseForeignKey(destinationTable, column, _, _)? where relationship.isToMany:
            try bounds(relationship, entity: entity, number: number, table: table,
                       count: "(SELECT count(*) FROM main.\(q(destinationTable)) d WHERE d.\(q(column)) = s.Z_PK)")
        case let .joinTable(join, sourceColumn, _, _)?:
            try bounds(relationship, entity: entity, number: number, table: table,
                       count: "(SELECT count(*) FROM main.\(q(join.name)) j WHERE j.\(q(sourceColumn)) = s.Z_PK)")
        default: break
        }
    }

    /// Core Data checks counts only for required relationships, or optional ones that are not empty.
    private func bounds(_ relationship: RelationshipDescription, entity: EntityDescription, number: Int, table: String, count: String) throws {
        let minimum = relationship.minCount, maximum = relationship.maxCount > 0 ? relationship.maxCount : Int.max
        guard minimum > 0 || maximum < Int.max || !relationship.isOptional else { return }
        let emptyAllowed = relationship.isOptional ? "c > 0 AND " : ""
        let sql = "SELECT Z_PK, c FROM (SELECT s.Z_PK, \(count) AS c FROM main.\(ColumnNaming.quote(table)) s WHERE s.Z_ENT = ?) WHERE \(emptyAllowed)(c < ? OR c > ?) LIMIT 1"
        let bounds = [SQLValue(number), SQLValue(max(minimum, relationship.isOptional ? 0 : 1)), SQLValue(maximum)]
        if let row = try manager.connection.row(SQLStatement(sql, bounds)) {
            let found = row[1].integer ?? 0
            throw failure(entity.name, row[0].integer ?? 0, relationship.name, "has \(found) destinations; the model allows \(minimum)…\(maximum == Int.max ? "∞" : String(maximum))")
        }
    }

    private func failure(_ entity: String, _ key: Int64, _ property: String, _ problem: String) -> MigrationError {
        MigrationError(.validation, "validation failed in the destination: \(entity) object \(key) (Z_PK \(key)): \(property) \(problem)",
                       fix: "map a value for \(entity).\(property) in the mapping model, or make it optional in the destination model")
    }
}
