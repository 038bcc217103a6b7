import ObjectModel
import SQLiteStore

/// A model's rules, checked with SQL over a store laid out as `layout` (its tables in the
/// connection's schema `schema`): required attributes and to-ones set, to-many counts within
/// their bounds. Stage 3 checks the destination with it; a history check, the store it generated.
struct ModelRuleCheck {
    let layout: StoreLayout
    let connection: StoreConnection
    var schema = "main"
    /// The store, as a failure names it.
    var place = "the destination"
    /// Only these objects (keys by entity number), as a context checks the objects it changed;
    /// nil for every object.
    var onlyKeys: [Int: [Int64]]?
    /// What a failure says to do.
    var fix: ((_ entity: String, _ property: String) -> String)?

    /// Stage 3 of a pass: the destination store.
    init(manager: MigrationManager) {
        (layout, connection) = (manager.stores.destinationLayout, manager.stores.connection)
    }

    init(layout: StoreLayout, connection: StoreConnection) {
        (self.layout, self.connection) = (layout, connection)
    }

    func validate(_ didCheckEntity: () -> Void = {}) throws {
        let model = layout.model
        let q = SQLIdentifier.quote
        for entity in model.entities {
            defer { didCheckEntity() }
            guard !entity.isAbstract, let number = layout.numbering.number(of: entity.name),
                let table = layout.table(for: entity.name)
            else { continue }
            if let onlyKeys, onlyKeys[number] == nil { continue }
            for attribute in model.allAttributes(of: entity) where !attribute.isOptional && !attribute.isTransient {
                guard let column = layout.column(entity: entity.name, property: attribute.name) else { continue }
                if let key = try connection.integer(
                    SQLStatement(
                        """
                        SELECT Z_PK FROM \(schema).\(q(table.name)) WHERE Z_ENT = ?\(only(number)) AND \
                        \(q(column.name)) IS NULL LIMIT 1
                        """,
                        [SQLValue(number)]))
                {
                    throw failure(entity.name, key, attribute.name, "is required but has no value")
                }
            }
            for relationship in model.allRelationships(of: entity) where !relationship.isTransient {
                try check(relationship, of: entity, number: number, table: table.name)
            }
        }
    }

    private func check(
        _ relationship: RelationshipDescription, of entity: EntityDescription, number: Int, table: String
    ) throws {
        let q = SQLIdentifier.quote
        switch layout.storage(entity: entity.name, relationship: relationship.name) {
        case let .foreignKey(_, column, _)? where !relationship.isOptional:
            if let key = try connection.integer(
                SQLStatement(
                    """
                    SELECT Z_PK FROM \(schema).\(q(table)) WHERE Z_ENT = ?\(only(number)) AND \(q(column)) IS NULL \
                    LIMIT 1
                    """,
                    [SQLValue(number)]))
            {
                throw failure(entity.name, key, relationship.name, "is required but points to nothing")
            }
        case let .inverseForeignKey(destinationTable, column, _, _)? where relationship.isToMany:
            try bounds(
                relationship, entity: entity, number: number, table: table,
                count: "(SELECT count(*) FROM \(schema).\(q(destinationTable)) d WHERE d.\(q(column)) = s.Z_PK)")
        case let .joinTable(join, sourceColumn, _, _)?:
            try bounds(
                relationship, entity: entity, number: number, table: table,
                count: "(SELECT count(*) FROM \(schema).\(q(join.name)) j WHERE j.\(q(sourceColumn)) = s.Z_PK)")
        default: break
        }
    }

    /// A to-many's count, as Core Data checks it: within `minCount…maxCount` (a maximum of 0 is
    /// no maximum), and an optional one may also be empty. "Not optional" adds nothing more for a
    /// to-many: its value is a set, never nil, so a required to-many with no minimum may be empty.
    /// Evidence: NSRelationshipDescription's documentation ("The counts are only enforced if the
    /// relationship value in the containing object is not nil. That is, optional relationships may
    /// have zero objects in the relationship, which might be less than the minimum count"), and
    /// WooCommerce's migration tests, which save a `ProductVariation` with no `attributes` (a
    /// required to-many, minimum 0) and migrate it through a mapping model with Core Data.
    /// The inference rules treat such a relationship as not mandatory for the same reason.
    private func bounds(
        _ relationship: RelationshipDescription, entity: EntityDescription, number: Int, table: String, count: String
    ) throws {
        let minimum = relationship.minCount, maximum = relationship.maxCount > 0 ? relationship.maxCount : Int.max
        guard minimum > 0 || maximum < Int.max else { return }
        let emptyAllowed = relationship.isOptional ? "c > 0 AND " : ""
        let sql =
            """
            SELECT Z_PK, c FROM (SELECT s.Z_PK, \(count) AS c FROM \(schema).\(SQLIdentifier.quote(table)) s WHERE \
            s.Z_ENT = ?\(only(number, "s."))) WHERE \(emptyAllowed)(c < ? OR c > ?) LIMIT 1
            """
        if let row = try connection.row(SQLStatement(sql, [SQLValue(number), SQLValue(minimum), SQLValue(maximum)])) {
            let found = row[1].integer ?? 0
            let allowed =
                maximum == Int.max
                ? "at least \(minimum)" : minimum == maximum ? "exactly \(minimum)" : "\(minimum) to \(maximum)"
            throw failure(
                entity.name, row[0].integer ?? 0, relationship.name,
                """
                has \(found) destination\(found == 1 ? "" : "s"); the model requires \
                \(allowed)\(relationship.isOptional ? " (or none)" : "")
                """
            )
        }
    }

    /// The condition that keeps a query to ``onlyKeys`` (integers, written into the SQL).
    private func only(_ number: Int, _ prefix: String = "") -> String {
        guard let keys = onlyKeys?[number] else { return "" }
        return " AND \(prefix)Z_PK IN (\(keys.map(String.init).joined(separator: ",")))"
    }

    private func failure(_ entity: String, _ key: Int64, _ property: String, _ problem: String) -> MigrationError {
        // Core Data validates the destination when the migration saves it, by the same rules.
        let verdict =
            place == "the destination"
            ? "; Core Data refuses such a store too (it validates the destination before saving)" : ""
        return MigrationError(
            .validation,
            "validation failed in \(place): \(entity) object \(key) (Z_PK \(key)): \(property) \(problem)\(verdict)",
            fix: fix?(entity, property)
                ?? """
                map a value for \(entity).\(property) in the mapping model, or make it optional in the destination \
                model
                """
        )
    }
}
