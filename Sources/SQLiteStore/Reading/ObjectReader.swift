import Foundation
internal import GRDB
import ObjectModel

/// Reads objects inside one read transaction. Fetches stream through a cursor: one row in
/// memory at a time, however large the table.
package final class ObjectReader {
    let db: Database
    let layout: StoreLayout
    let path: String
    let schema: String
    private let decoders = DecoderCache()
    /// Statements worked out once per entity and relationship (ReaderQueries.swift).
    let queries = ReaderQueries()
    /// What serves look-ups by value (attributes, foreign keys, join-table columns) with an index
    /// (see ObjectReader+Lookup.swift); without it they search the columns as they are.
    let lookups: LookupIndexes?

    /// A view of the store `layout` describes, attached to `connection` as `schema` (`main` when it is the
    /// connection's own file); `path` names it in errors. With `lookups`, every look-up by value
    /// is served by an index: a migration's readers look up once per row.
    package convenience init(
        connection: StoreConnection, layout: StoreLayout, schema: String = "main", path: String,
        lookups: LookupIndexes? = nil
    ) {
        self.init(db: connection.db, layout: layout, schema: schema, path: path, lookups: lookups)
    }

    init(db: Database, layout: StoreLayout, schema: String = "main", path: String, lookups: LookupIndexes? = nil) {
        self.db = db
        self.layout = layout
        self.schema = schema
        self.path = path
        self.lookups = lookups
    }

    /// A table name qualified with the schema, quoted.
    func t(_ table: String) -> String { SQLIdentifier.qualified(table, schema: schema) }

    /// Calls `body` for each instance of `entity` (and of its subentities unless told not to), in
    /// `Z_PK` order, through one cursor (``ObjectPrefetch`` reads a migration's source this way).
    package func forEachObject(
        of entity: String, includingSubentities: Bool = true, _ body: (StoredObject) throws -> Void
    ) throws {
        let (table, numbers) = try scope(entity, includingSubentities)
        let statement = try db.cachedStatement(
            sql:
                """
                SELECT * FROM \(t(table.name)) WHERE Z_ENT IN (\(numbers.map(String.init).joined(separator: ","))) \
                ORDER BY Z_PK
                """
        )
        var decoders: [Int: Decoder] = [:]
        let entityColumn = CheckedColumn(path: path, table: table.name, column: "Z_ENT")
        do {
            try statement.forEachRow([]) { column in
                let number = try entityColumn.requiredInt(column(Decoder.entityColumn).databaseValue)
                let decoder = try decoders[number] ?? decoder(for: number, columns: statement.columnNames)
                decoders[number] = decoder
                try body(decoder.object(column))
            }
        } catch let error as DatabaseError { throw StoreError.from(error, path: path) }
    }

    /// How many instances `entity` has (with its subentities' unless told not to).
    package func count(of entity: String, includingSubentities: Bool = true) throws -> Int {
        let (table, numbers) = try scope(entity, includingSubentities)
        return try Int.fetchOne(
            db,
            sql:
                """
                SELECT count(*) FROM \(t(table.name)) WHERE Z_ENT IN \
                (\(numbers.map(String.init).joined(separator: ",")))
                """
        ) ?? 0
    }

    /// The IDs of instances of `entity` (and its subentities) whose attribute `name` equals
    /// `value`, in `Z_PK` order: the fetch a migration policy uses to find destination objects.
    package func objectIDs(of entity: String, where name: String, equals value: StoreValue) throws -> [ObjectID] {
        let (table, numbers) = try scope(entity, true)
        guard let (attribute, column) = layout.attributeColumns(of: entity).first(where: { $0.attribute.name == name }),
            let converted = value.databaseValue(for: attribute)
        else {
            throw StoreError(
                .unknownProperty, path: path, "entity \(entity) has no attribute \(name) that can equal \(value)",
                fix: "fetch by an attribute of the entity, with a value of its type")
        }
        return try Row.fetchAll(
            db,
            sql:
                """
                SELECT Z_PK, Z_ENT FROM \(t(table.name)) WHERE Z_ENT IN \
                (\(numbers.map(String.init).joined(separator: ","))) AND \(SQLIdentifier.quote(column.name)) IS ? \
                ORDER BY Z_PK
                """,
            arguments: [converted]
        ).map { try objectID($0, table: table.name) }
    }

    /// The highest `Z_PK` in `entity`'s table (0 when empty): where new keys continue from.
    package func highestKey(of entity: String) throws -> Int64 {
        let (table, _) = try scope(entity, true)
        let highest = try DatabaseValue.fetchOne(db, sql: "SELECT max(Z_PK) FROM \(t(table.name))") ?? .null
        return try CheckedColumn(path: path, table: table.name, column: "Z_PK").integer(highest, row: "its highest")
            ?? 0
    }

    /// The object with `id`, if it exists.
    package func object(_ id: ObjectID) throws -> StoredObject? {
        guard let name = layout.numbering.name(of: id.entityNumber), let table = layout.table(for: name) else {
            return nil
        }
        // Cached statements: migrations call this once per row, and preparing costs more than running.
        let statement = try db.cachedStatement(sql: objectQuery(id.entityNumber, table: table.name))
        guard let row = try statement.firstRow([.integer(id.primaryKey), SQLValue(id.entityNumber)]) else { return nil }
        return try decoder(for: id.entityNumber, columns: statement.columnNames).object { row[$0] }
    }

    /// The destinations of relationship `name` of `id`, in order for ordered relationships and by
    /// `Z_PK` otherwise.
    package func destinations(of id: ObjectID, _ name: String) throws -> [ObjectID] {
        guard let entity = layout.numbering.name(of: id.entityNumber),
            let query = try relationshipQuery(name, entityNumber: id.entityNumber, entity: entity)
        else {
            throw StoreError(
                .unknownProperty, path: path, "object \(id) has no stored relationship \(name)",
                fix: "check the relationship's name")
        }
        switch query.kind {
        case let .foreignKey(column, entityColumn):
            let row = try Row.fetchOne(db.cachedStatement(sql: query.sql), arguments: [id.primaryKey])
            guard let row,
                let key = try CheckedColumn(path: path, table: query.table, column: column).integer(
                    row.raw(0), row: "Z_PK \(id.primaryKey)")
            else {
                return []
            }
            let number = try entityColumn.flatMap {
                try CheckedColumn(path: path, table: query.table, column: $0).integer(
                    row.raw(1), row: "Z_PK \(id.primaryKey)")
            }
            return [ObjectID(entityNumber: number.map { Int($0) } ?? query.destinationNumber, primaryKey: key)]
        case .members:
            return try objectIDs(query.sql, [.integer(id.primaryKey)], table: query.table)
        }
    }

    /// The ID in a row whose first two columns are `Z_PK` and `Z_ENT` of `table`, checked.
    func objectID(_ row: Row, table: String) throws -> ObjectID {
        let key = try CheckedColumn(path: path, table: table, column: "Z_PK").requiredInteger(row.raw(0))
        let number = try CheckedColumn(path: path, table: table, column: "Z_ENT").requiredInt(
            row.raw(1), row: "Z_PK \(key)")
        return ObjectID(entityNumber: number, primaryKey: key)
    }

    private func scope(_ entity: String, _ includingSubentities: Bool) throws -> (StoreLayout.Table, [Int]) {
        guard let number = layout.numbering.number(of: entity), let table = layout.table(for: entity) else {
            throw StoreError(
                .unknownEntity, path: path, "the model has no entity \(entity)",
                fix: "use one of: \(layout.model.entities.map(\.name).joined(separator: ", "))")
        }
        return (table, includingSubentities ? layout.numbering.numbers(inHierarchyOf: number) : [number])
    }

    /// Turns rows of one concrete entity into objects; built once per entity per reader. Every
    /// query it decodes is `SELECT *` on the entity's table, so it reads columns by position:
    /// looking each up by name cost more than the rest of the decoding.
    struct Decoder {
        static let keyColumn = 0, entityColumn = 1, versionColumn = 2
        var entity: String
        var attributes: [(name: String, kind: StoreValue.StorageKind, index: Int)]
        var toOnes: [(name: String, index: Int, entityIndex: Int?, destinationNumber: Int)]
        /// Names the store, table and columns when a value is not what Core Data writes there.
        var path: String
        var table: String
        /// One checker per column, made once: a reader calls ``checked(_:)`` per value.
        let checkers: [CheckedColumn]

        init(
            entity: String, attributes: [(name: String, kind: StoreValue.StorageKind, index: Int)],
            toOnes: [(name: String, index: Int, entityIndex: Int?, destinationNumber: Int)], path: String,
            table: String, columns: [String]
        ) {
            (self.entity, self.attributes, self.toOnes, self.path, self.table) = (
                entity, attributes, toOnes, path, table
            )
            checkers = columns.map { CheckedColumn(path: path, table: table, column: $0) }
        }

        /// The object in a row whose column `i` is `column(i)`.
        func object(_ column: (Int) -> SQLValue) throws -> StoredObject {
            let key = try checked(Self.keyColumn).requiredInteger(column(Self.keyColumn).databaseValue)
            let number = try checked(Self.entityColumn).requiredInt(
                column(Self.entityColumn).databaseValue, row: "Z_PK \(key)")
            let version =
                try checked(Self.versionColumn).integer(column(Self.versionColumn).databaseValue, row: "Z_PK \(key)")
                ?? 0
            var values: [String: StoreValue] = [:]
            values.reserveCapacity(attributes.count)
            for (name, kind, index) in attributes { values[name] = StoreValue(column(index), for: kind) }
            var toOne: [String: ObjectID] = [:]
            toOne.reserveCapacity(toOnes.count)
            for link in toOnes {
                guard
                    let destination = try checked(link.index).integer(
                        column(link.index).databaseValue, row: "Z_PK \(key)")
                else { continue }
                let destinationEntity = try link.entityIndex.flatMap {
                    try checked($0).integer(column($0).databaseValue, row: "Z_PK \(key)")
                }
                toOne[link.name] = ObjectID(
                    entityNumber: destinationEntity.map { Int($0) } ?? link.destinationNumber, primaryKey: destination)
            }
            return StoredObject(
                id: ObjectID(entityNumber: number, primaryKey: key), entity: entity, version: version, values: values,
                toOne: toOne)
        }

        private func checked(_ index: Int) -> CheckedColumn {
            index < checkers.count ? checkers[index] : CheckedColumn(path: path, table: table, column: "#\(index)")
        }
    }

    /// Decoders are built once per entity and reader: building one walks the model.
    private final class DecoderCache {
        var byEntity: [Int: Decoder] = [:]
    }

    func decoder(for number: Int, columns: [String]) throws -> Decoder {
        if let known = decoders.byEntity[number] { return known }
        let built = try makeDecoder(for: number, columns: columns)
        decoders.byEntity[number] = built
        return built
    }

    /// `columns` are the names `SELECT *` gives for the entity's table, in order.
    private func makeDecoder(for number: Int, columns: [String]) throws -> Decoder {
        guard let name = layout.numbering.name(of: number), let entity = layout.model.entity(named: name) else {
            throw StoreError(
                .corrupt, path: path, "a row has Z_ENT \(number), which no entity of the model has",
                fix: "open the store with the model version it was written with")
        }
        let positions = Dictionary(
            columns.enumerated().map { ($1.uppercased(), $0) }, uniquingKeysWith: { first, _ in first })
        guard positions["Z_PK"] == Decoder.keyColumn, positions["Z_ENT"] == Decoder.entityColumn,
            positions["Z_OPT"] == Decoder.versionColumn
        else {
            throw StoreError(
                .corrupt, path: path,
                """
                the table of \(name) does not start with Z_PK, Z_ENT, Z_OPT (it has \
                \(columns.prefix(3).joined(separator: ", ")))
                """,
                fix: "open a store written by Core Data or Chrysalis")
        }
        func position(_ column: String) throws -> Int {
            guard let index = positions[column.uppercased()] else {
                throw StoreError(
                    .corrupt, path: path, "the table of \(name) has no column \(column), which the model stores there",
                    fix: "open the store with the model version it was written with")
            }
            return index
        }
        var toOnes: [(name: String, index: Int, entityIndex: Int?, destinationNumber: Int)] = []
        for relationship in layout.model.allRelationships(of: entity)
        where !relationship.isToMany && !relationship.isTransient {
            guard
                case let .foreignKey(_, column, entityColumn)? = layout.storage(
                    entity: name, relationship: relationship.name)
            else { continue }
            toOnes.append(
                (
                    relationship.name, try position(column), try entityColumn.map(position),
                    layout.numbering.number(of: relationship.destinationEntityName) ?? 0
                ))
        }
        let attributes = try layout.attributeColumns(of: name).map {
            (name: $0.attribute.name, kind: StoreValue.StorageKind($0.attribute), index: try position($0.column.name))
        }
        return Decoder(
            entity: name, attributes: attributes, toOnes: toOnes, path: path,
            table: layout.table(for: name)?.name ?? name, columns: columns)
    }
}
