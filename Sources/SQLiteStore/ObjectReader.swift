import Foundation
import GRDB
import ObjectModel

/// An object as read from a store: its ID, concrete entity, attribute values and to-one
/// destinations.
public struct StoredObject: Hashable, Sendable {
    /// Entity number and `Z_PK`.
    public var id: ObjectID
    /// The concrete entity's name.
    public var entity: String
    /// `Z_OPT`: how many times the object was saved.
    public var version: Int64
    /// Every stored attribute (inherited ones included), `.null` when unset.
    public var values: [String: StoreValue]
    /// Every to-one relationship that is set.
    public var toOne: [String: ObjectID]
}

/// Reads objects inside one read transaction. Fetches stream through a cursor: one row in
/// memory at a time, however large the table.
public struct ObjectReader {
    let db: Database
    let layout: StoreLayout
    let path: String
    private let schema: String
    private let decoders = DecoderCache()

    /// A view of the store `layout` describes, attached to `db` as `schema` (`main` when it is the
    /// connection's own file); `path` names it in errors.
    public init(db: Database, layout: StoreLayout, schema: String = "main", path: String) {
        self.db = db
        self.layout = layout
        self.schema = schema
        self.path = path
    }

    /// A table name qualified with the schema, quoted.
    func t(_ table: String) -> String { ColumnNaming.qualified(table, schema: schema) }

    /// Calls `body` for each instance of `entity` (and of its subentities unless told not to), in
    /// `Z_PK` order, through one cursor (``ObjectPrefetch`` reads a migration's source this way).
    public func forEachObject(of entity: String, includingSubentities: Bool = true, _ body: (StoredObject) throws -> Void) throws {
        let (table, numbers) = try scope(entity, includingSubentities)
        let statement = try db.cachedStatement(sql: "SELECT * FROM \(t(table.name)) WHERE Z_ENT IN (\(numbers.map(String.init).joined(separator: ","))) ORDER BY Z_PK")
        let cursor = try Row.fetchCursor(statement)
        var decoders: [Int: Decoder] = [:]
        while let row = try cursor.next() {
            let number: Int = row[Decoder.entityColumn]
            if decoders[number] == nil { decoders[number] = try decoder(for: number, columns: statement.columnNames) }
            try body(decoders[number]!.object(from: row))
        }
    }

    /// How many instances `entity` has (with its subentities' unless told not to).
    public func count(of entity: String, includingSubentities: Bool = true) throws -> Int {
        let (table, numbers) = try scope(entity, includingSubentities)
        return try Int.fetchOne(db, sql: "SELECT count(*) FROM \(t(table.name)) WHERE Z_ENT IN (\(numbers.map(String.init).joined(separator: ",")))") ?? 0
    }

    /// The IDs of instances of `entity` (and its subentities) whose attribute `name` equals
    /// `value`, in `Z_PK` order: the fetch a migration policy uses to find destination objects.
    public func objectIDs(of entity: String, where name: String, equals value: StoreValue) throws -> [ObjectID] {
        let (table, numbers) = try scope(entity, true)
        guard let (attribute, column) = layout.attributeColumns(of: entity).first(where: { $0.attribute.name == name }),
              let converted = value.databaseValue(for: attribute) else {
            throw StoreError(.unknownProperty, path: path, "entity \(entity) has no attribute \(name) that can equal \(value)",
                             fix: "fetch by an attribute of the entity, with a value of its type")
        }
        return try Row.fetchAll(db, sql: "SELECT Z_PK, Z_ENT FROM \(t(table.name)) WHERE Z_ENT IN (\(numbers.map(String.init).joined(separator: ","))) AND \(ColumnNaming.quote(column.name)) IS ? ORDER BY Z_PK",
                                arguments: [converted]).map { ObjectID(entityNumber: $0[1], primaryKey: $0[0]) }
    }

    /// The highest `Z_PK` in `entity`'s table (0 when empty): where new keys continue from.
    public func highestKey(of entity: String) throws -> Int64 {
        let (table, _) = try scope(entity, true)
        return try Int64.fetchOne(db, sql: "SELECT max(Z_PK) FROM \(t(table.name))") ?? 0
    }

    /// The object with `id`, if it exists.
    public func object(_ id: ObjectID) throws -> StoredObject? {
        guard let name = layout.numbering.name(of: id.entityNumber), let table = layout.table(for: name) else { return nil }
        // Cached statements: migrations call this once per row, and preparing costs more than running.
        let statement = try db.cachedStatement(sql: "SELECT * FROM \(t(table.name)) WHERE Z_PK = ? AND Z_ENT = ?")
        guard let row = try Row.fetchOne(statement, arguments: [id.primaryKey, id.entityNumber]) else { return nil }
        return try decoder(for: id.entityNumber, columns: statement.columnNames).object(from: row)
    }

    /// The destinations of relationship `name` of `id`, in order for ordered relationships and by
    /// `Z_PK` otherwise.
    public func destinations(of id: ObjectID, _ name: String) throws -> [ObjectID] {
        guard let entity = layout.numbering.name(of: id.entityNumber), let storage = layout.storage(entity: entity, relationship: name),
              let source = layout.model.entity(named: entity), let relationship = layout.model.relationship(named: name, in: source) else {
            throw StoreError(.unknownProperty, path: path, "object \(id) has no stored relationship \(name)", fix: "check the relationship's name")
        }
        let q = ColumnNaming.quote
        let destinationNumber = layout.numbering.number(of: relationship.destinationEntityName) ?? 0
        switch storage {
        case let .foreignKey(table, column, entityColumn):
            let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT \(q(column)), \(entityColumn.map(q) ?? "NULL") FROM \(t(table)) WHERE Z_PK = ?"), arguments: [id.primaryKey])
            guard let row, let key = row[0] as Int64? else { return [] }
            return [ObjectID(entityNumber: row[1] as Int? ?? destinationNumber, primaryKey: key)]
        case let .inverseForeignKey(table, column, _, orderColumn):
            let order = orderColumn.map { "\(q($0)), Z_PK" } ?? "Z_PK"
            return try Row.fetchAll(db.cachedStatement(sql: "SELECT Z_PK, Z_ENT FROM \(t(table)) WHERE \(q(column)) = ? ORDER BY \(order)"), arguments: [id.primaryKey])
                .map { ObjectID(entityNumber: $0[1], primaryKey: $0[0]) }
        case let .joinTable(join, sourceColumn, destinationColumn, orderColumn):
            guard let destinationTable = layout.table(for: relationship.destinationEntityName) else { return [] }
            let order = orderColumn.map { "j.\(q($0)), d.Z_PK" } ?? "d.Z_PK"
            return try Row.fetchAll(db.cachedStatement(sql: """
                SELECT d.Z_PK, d.Z_ENT FROM \(t(join.name)) j JOIN \(t(destinationTable.name)) d ON d.Z_PK = j.\(q(destinationColumn))
                WHERE j.\(q(sourceColumn)) = ? ORDER BY \(order)
                """), arguments: [id.primaryKey]).map { ObjectID(entityNumber: $0[1], primaryKey: $0[0]) }
        }
    }

    private func scope(_ entity: String, _ includingSubentities: Bool) throws -> (StoreLayout.Table, [Int]) {
        guard let number = layout.numbering.number(of: entity), let table = layout.table(for: entity) else {
            throw StoreError(.unknownEntity, path: path, "the model has no entity \(entity)",
                             fix: "use one of: \(layout.model.entities.map(\.name).joined(separator: ", "))")
        }
        return (table, includingSubentities ? layout.numbering.numbers(inHierarchyOf: number) : [number])
    }

    /// Turns rows of one concrete entity into objects; built once per entity per reader. Every
    /// query it decodes is `SELECT *` on the entity's table, so it reads columns by position:
    /// looking each up by name cost more than the rest of the decoding.
    private struct Decoder {
        static let keyColumn = 0, entityColumn = 1, versionColumn = 2
        var entity: String
        var attributes: [(name: String, kind: StoreValue.StorageKind, index: Int)]
        var toOnes: [(name: String, index: Int, entityIndex: Int?, destinationNumber: Int)]

        func object(from row: Row) -> StoredObject {
            var values: [String: StoreValue] = [:]
            values.reserveCapacity(attributes.count)
            for (name, kind, index) in attributes { values[name] = StoreValue(row[index] as DatabaseValue, for: kind) }
            var toOne: [String: ObjectID] = [:]
            for link in toOnes {
                guard let key = row[link.index] as Int64? else { continue }
                toOne[link.name] = ObjectID(entityNumber: link.entityIndex.flatMap { row[$0] as Int? } ?? link.destinationNumber, primaryKey: key)
            }
            return StoredObject(id: ObjectID(entityNumber: row[Self.entityColumn], primaryKey: row[Self.keyColumn]), entity: entity,
                                version: row[Self.versionColumn] ?? 0, values: values, toOne: toOne)
        }
    }

    /// Decoders are built once per entity and reader: building one walks the model.
    private final class DecoderCache {
        var byEntity: [Int: Decoder] = [:]
    }

    private func decoder(for number: Int, columns: [String]) throws -> Decoder {
        if let known = decoders.byEntity[number] { return known }
        let built = try makeDecoder(for: number, columns: columns)
        decoders.byEntity[number] = built
        return built
    }

    /// `columns` are the names `SELECT *` gives for the entity's table, in order.
    private func makeDecoder(for number: Int, columns: [String]) throws -> Decoder {
        guard let name = layout.numbering.name(of: number), let entity = layout.model.entity(named: name) else {
            throw StoreError(.corrupt, path: path, "a row has Z_ENT \(number), which no entity of the model has",
                             fix: "open the store with the model version it was written with")
        }
        let positions = Dictionary(columns.enumerated().map { ($1.uppercased(), $0) }, uniquingKeysWith: { first, _ in first })
        guard positions["Z_PK"] == Decoder.keyColumn, positions["Z_ENT"] == Decoder.entityColumn, positions["Z_OPT"] == Decoder.versionColumn else {
            throw StoreError(.corrupt, path: path, "the table of \(name) does not start with Z_PK, Z_ENT, Z_OPT (it has \(columns.prefix(3).joined(separator: ", ")))",
                             fix: "open a store written by Core Data or Chrysalis")
        }
        func position(_ column: String) throws -> Int {
            guard let index = positions[column.uppercased()] else {
                throw StoreError(.corrupt, path: path, "the table of \(name) has no column \(column), which the model stores there",
                                 fix: "open the store with the model version it was written with")
            }
            return index
        }
        var toOnes: [(name: String, index: Int, entityIndex: Int?, destinationNumber: Int)] = []
        for relationship in layout.model.allRelationships(of: entity) where !relationship.isToMany && !relationship.isTransient {
            guard case let .foreignKey(_, column, entityColumn)? = layout.storage(entity: name, relationship: relationship.name) else { continue }
            toOnes.append((relationship.name, try position(column), try entityColumn.map(position),
                           layout.numbering.number(of: relationship.destinationEntityName) ?? 0))
        }
        let attributes = try layout.attributeColumns(of: name).map { (name: $0.attribute.name, kind: StoreValue.StorageKind($0.attribute), index: try position($0.column.name)) }
        return Decoder(entity: name, attributes: attributes, toOnes: toOnes)
    }
}

extension PersistentStore {
    /// Runs `body` with a reader over this store laid out as `layout`.
    public func readObjects<T>(_ layout: StoreLayout, _ body: (ObjectReader) throws -> T) throws -> T {
        try read { db in try body(ObjectReader(db: db, layout: layout, path: path)) }
    }

    /// Runs `body` with a writer in one transaction; committed when `body` returns, rolled back
    /// (nothing written) when it throws.
    public func writeObjects<T>(_ layout: StoreLayout, _ body: (ObjectWriter) throws -> T) throws -> T {
        try write { db in
            let writer = ObjectWriter(db: db, layout: layout, path: path)
            let result = try body(writer)
            try writer.finish()
            return result
        }
    }
}
