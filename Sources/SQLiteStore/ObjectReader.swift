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
    private let db: Database
    private let layout: StoreLayout
    private let path: String

    init(db: Database, layout: StoreLayout, path: String) {
        self.db = db
        self.layout = layout
        self.path = path
    }

    /// Calls `body` for each instance of `entity` (and of its subentities unless told not to), in
    /// `Z_PK` order.
    public func forEachObject(of entity: String, includingSubentities: Bool = true, _ body: (StoredObject) throws -> Void) throws {
        let (table, numbers) = try scope(entity, includingSubentities)
        let cursor = try Row.fetchCursor(db, sql: "SELECT * FROM \(ColumnNaming.quote(table.name)) WHERE Z_ENT IN (\(numbers.map(String.init).joined(separator: ","))) ORDER BY Z_PK")
        var decoders: [Int: Decoder] = [:]
        while let row = try cursor.next() {
            let number: Int = row["Z_ENT"]
            if decoders[number] == nil { decoders[number] = try decoder(for: number) }
            try body(decoders[number]!.object(from: row))
        }
    }

    /// How many instances `entity` has (with its subentities' unless told not to).
    public func count(of entity: String, includingSubentities: Bool = true) throws -> Int {
        let (table, numbers) = try scope(entity, includingSubentities)
        return try Int.fetchOne(db, sql: "SELECT count(*) FROM \(ColumnNaming.quote(table.name)) WHERE Z_ENT IN (\(numbers.map(String.init).joined(separator: ",")))") ?? 0
    }

    /// The object with `id`, if it exists.
    public func object(_ id: ObjectID) throws -> StoredObject? {
        guard let name = layout.numbering.name(of: id.entityNumber), let table = layout.table(for: name) else { return nil }
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM \(ColumnNaming.quote(table.name)) WHERE Z_PK = ? AND Z_ENT = ?",
                                         arguments: [id.primaryKey, id.entityNumber]) else { return nil }
        return try decoder(for: id.entityNumber).object(from: row)
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
            let row = try Row.fetchOne(db, sql: "SELECT \(q(column)), \(entityColumn.map(q) ?? "NULL") FROM \(q(table)) WHERE Z_PK = ?", arguments: [id.primaryKey])
            guard let row, let key = row[0] as Int64? else { return [] }
            return [ObjectID(entityNumber: row[1] as Int? ?? destinationNumber, primaryKey: key)]
        case let .inverseForeignKey(table, column, _, orderColumn):
            let order = orderColumn.map { "\(q($0)), Z_PK" } ?? "Z_PK"
            return try Row.fetchAll(db, sql: "SELECT Z_PK, Z_ENT FROM \(q(table)) WHERE \(q(column)) = ? ORDER BY \(order)", arguments: [id.primaryKey])
                .map { ObjectID(entityNumber: $0[1], primaryKey: $0[0]) }
        case let .joinTable(join, sourceColumn, destinationColumn, orderColumn):
            guard let destinationTable = layout.table(for: relationship.destinationEntityName) else { return [] }
            let order = orderColumn.map { "j.\(q($0)), d.Z_PK" } ?? "d.Z_PK"
            return try Row.fetchAll(db, sql: """
                SELECT d.Z_PK, d.Z_ENT FROM \(q(join.name)) j JOIN \(q(destinationTable.name)) d ON d.Z_PK = j.\(q(destinationColumn))
                WHERE j.\(q(sourceColumn)) = ? ORDER BY \(order)
                """, arguments: [id.primaryKey]).map { ObjectID(entityNumber: $0[1], primaryKey: $0[0]) }
        }
    }

    private func scope(_ entity: String, _ includingSubentities: Bool) throws -> (StoreLayout.Table, [Int]) {
        guard let number = layout.numbering.number(of: entity), let table = layout.table(for: entity) else {
            throw StoreError(.unknownEntity, path: path, "the model has no entity \(entity)",
                             fix: "use one of: \(layout.model.entities.map(\.name).joined(separator: ", "))")
        }
        return (table, includingSubentities ? layout.numbering.numbers(inHierarchyOf: number) : [number])
    }

    /// Turns rows of one concrete entity into objects; built once per entity per fetch.
    private struct Decoder {
        var entity: String
        var attributes: [(AttributeDescription, String)]
        var toOnes: [(name: String, column: String, entityColumn: String?, destinationNumber: Int)]

        func object(from row: Row) -> StoredObject {
            var values: [String: StoreValue] = [:]
            for (attribute, column) in attributes { values[attribute.name] = StoreValue(row[column] as DatabaseValue, for: attribute) }
            var toOne: [String: ObjectID] = [:]
            for link in toOnes {
                guard let key = row[link.column] as Int64? else { continue }
                toOne[link.name] = ObjectID(entityNumber: link.entityColumn.flatMap { row[$0] as Int? } ?? link.destinationNumber, primaryKey: key)
            }
            return StoredObject(id: ObjectID(entityNumber: row["Z_ENT"], primaryKey: row["Z_PK"]), entity: entity,
                                version: row["Z_OPT"] ?? 0, values: values, toOne: toOne)
        }
    }

    private func decoder(for number: Int) throws -> Decoder {
        guard let name = layout.numbering.name(of: number), let entity = layout.model.entity(named: name) else {
            throw StoreError(.corrupt, path: path, "a row has Z_ENT \(number), which no entity of the model has",
                             fix: "open the store with the model version it was written with")
        }
        let toOnes = layout.model.allRelationships(of: entity).filter { !$0.isToMany && !$0.isTransient }.compactMap { relationship in
            guard case let .foreignKey(_, column, entityColumn)? = layout.storage(entity: name, relationship: relationship.name) else { return nil as (String, String, String?, Int)? }
            return (relationship.name, column, entityColumn, layout.numbering.number(of: relationship.destinationEntityName) ?? 0)
        }
        return Decoder(entity: name, attributes: layout.attributeColumns(of: name).map { ($0.attribute, $0.column.name) }, toOnes: toOnes)
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
