internal import GRDB
import ObjectModel

/// The SQL an ``ObjectReader`` runs per object, worked out once per entity and relationship.
///
/// A migration policy reads an object, follows a relationship or looks up by attribute once per
/// row. Working out the statement each time — the entity's table and storage, the quoted and
/// qualified names, the index that serves it — cost more than SQLite running it (`perf` on
/// `chrysalis-bench --scenario policy-lookups`, the objc.io Books chain). Queries that depend on a
/// look-up index are built again after the indexes are dropped (``LookupIndexes/generation``).
final class ReaderQueries {
    /// How one relationship of one entity is read.
    struct Relationship {
        enum Kind {
            /// A to-one: the key (and entity number) columns of the owner's row.
            case foreignKey(column: String, entityColumn: String?)
            /// A to-many: rows of the members' table, or of the join table joined to them.
            case members
        }
        let sql: String
        let kind: Kind
        /// The table the returned keys are read from (named in errors).
        let table: String
        let destinationNumber: Int
        let generation: Int
    }

    /// How a look-up by attribute is run.
    struct Lookup {
        let sql: String
        let kind: StoreValue.StorageKind
        let table: String
        let generation: Int
    }

    struct RelationshipKey: Hashable {
        let entityNumber: Int
        let name: String
    }

    struct LookupKey: Hashable {
        let entity: String, attribute: String
        let last: Bool
        let limit: Int?
    }

    var objects: [Int: String] = [:]
    var relationships: [RelationshipKey: Relationship] = [:]
    var lookups: [LookupKey: Lookup] = [:]
}

extension ObjectReader {
    /// The object IDs in the first two columns (`Z_PK`, `Z_ENT` of `table`) of the rows `sql`
    /// returns with `values` bound, read straight from SQLite; a value that is not an integer is
    /// the checked error naming the table and column.
    func objectIDs(_ sql: String, _ values: [SQLValue], table: String) throws -> [ObjectID] {
        let statement = try db.cachedStatement(sql: sql)
        let keys = try statement.objectKeys(values)
        guard keys.allSatisfy({ $0 != nil }) else {
            // Read again, row by row, for the error that says which value is wrong.
            return try Row.fetchAll(statement, arguments: StatementArguments(values.map(\.databaseValue))).map {
                try objectID($0, table: table)
            }
        }
        return keys.map { ObjectID(entityNumber: Int(truncatingIfNeeded: $0!.entity), primaryKey: $0!.key) }
    }

    /// `SELECT *` of one object of the entity numbered `number`, by key.
    func objectQuery(_ number: Int, table: String) -> String {
        if let known = queries.objects[number] { return known }
        let sql = "SELECT * FROM \(t(table)) WHERE Z_PK = ? AND Z_ENT = ?"
        queries.objects[number] = sql
        return sql
    }

    /// How relationship `name` of instances of the entity numbered `number` (called `entity`) is read.
    /// `nil` when the entity has no stored relationship `name`.
    func relationshipQuery(_ name: String, entityNumber number: Int, entity: String) throws -> ReaderQueries
        .Relationship?
    {
        let key = ReaderQueries.RelationshipKey(entityNumber: number, name: name)
        let generation = lookups?.generation ?? 0
        if let known = queries.relationships[key], known.generation == generation { return known }
        guard let storage = layout.storage(entity: entity, relationship: name),
            case .relationship(let relationship, _)? = layout.property(name, of: entity)
        else { return nil }
        let q = SQLIdentifier.quote
        let destinationNumber = layout.numbering.number(of: relationship.destinationEntityName) ?? 0
        let built: ReaderQueries.Relationship
        switch storage {
        case let .foreignKey(table, column, entityColumn):
            built = .init(
                sql: "SELECT \(q(column)), \(entityColumn.map(q) ?? "NULL") FROM \(t(table)) WHERE Z_PK = ?",
                kind: .foreignKey(column: column, entityColumn: entityColumn), table: table,
                destinationNumber: destinationNumber, generation: generation)
        case let .inverseForeignKey(table, column, _, orderColumn):
            let order = orderColumn.map { "\(q($0)), Z_PK" } ?? "Z_PK"
            let members = try lookups?.condition(table: table, column: column, alias: table) ?? "\(q(column)) = ?"
            built = .init(
                sql: "SELECT Z_PK, Z_ENT FROM \(t(table)) WHERE \(members) ORDER BY \(order)",
                kind: .members, table: table, destinationNumber: destinationNumber, generation: generation)
        case let .joinTable(join, sourceColumn, destinationColumn, orderColumn):
            let destinationTable =
                layout.table(for: relationship.destinationEntityName)?.name ?? relationship.destinationEntityName
            let order = orderColumn.map { "j.\(q($0)), d.Z_PK" } ?? "d.Z_PK"
            let links =
                try lookups?.condition(table: join.name, column: sourceColumn, alias: "j") ?? "j.\(q(sourceColumn)) = ?"
            built = .init(
                sql: """
                    SELECT d.Z_PK, d.Z_ENT FROM \(t(join.name)) j JOIN \(t(destinationTable)) d ON d.Z_PK = j.\(q(destinationColumn))
                    WHERE \(links) ORDER BY \(order)
                    """, kind: .members, table: destinationTable, destinationNumber: destinationNumber,
                generation: generation)
        }
        queries.relationships[key] = built
        return built
    }

    /// How instances of `entity` (and its subentities) whose attribute `name` equals a value are
    /// found, from the lowest key or the highest, at most `limit`.
    func lookupQuery(_ entity: String, attribute name: String, end: LookupEnd, limit: Int?) throws
        -> ReaderQueries.Lookup
    {
        let key = ReaderQueries.LookupKey(entity: entity, attribute: name, last: end == .last, limit: limit)
        let generation = lookups?.generation ?? 0
        if let known = queries.lookups[key], known.generation == generation { return known }
        guard let number = layout.numbering.number(of: entity), let table = layout.table(for: entity) else {
            throw StoreError(
                .unknownEntity, path: path, "the model has no entity \(entity)",
                fix: "use one of: \(layout.model.entities.map(\.name).joined(separator: ", "))")
        }
        guard let (attribute, column) = layout.attributeColumns(of: entity).first(where: { $0.attribute.name == name })
        else {
            throw StoreError(
                .unknownProperty, path: path, "entity \(entity) has no stored attribute \(name)",
                fix: "look up by a stored attribute of \(entity)")
        }
        let entities = layout.numbering.numbers(inHierarchyOf: number).map(String.init).joined(separator: ",")
        let order = (end == .last ? " DESC" : "") + (limit.map { " LIMIT \(max($0, 0))" } ?? "")
        // An indexed copy is read in key order and joined back by key: no sort, however many match.
        let sql =
            if case .copy(let copy)? = try lookups?.path(table: table.name, column: column.name) {
                """
                SELECT t.Z_PK, t.Z_ENT FROM \(copy) c CROSS JOIN \(t(table.name)) t ON t.Z_PK = c.key WHERE \
                c.value IS ? AND t.Z_ENT IN (\(entities)) ORDER BY c.key\(order)
                """
            } else {
                """
                SELECT Z_PK, Z_ENT FROM \(t(table.name)) WHERE \(SQLIdentifier.quote(column.name)) IS ? AND Z_ENT \
                IN (\(entities)) ORDER BY Z_PK\(order)
                """
            }
        let built = ReaderQueries.Lookup(
            sql: sql, kind: StoreValue.StorageKind(attribute), table: table.name, generation: generation)
        queries.lookups[key] = built
        return built
    }
}
