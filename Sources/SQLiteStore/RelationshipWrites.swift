internal import GRDB
import ObjectModel

/// How an ``ObjectWriter`` sets relationships, by where the store keeps them: a to-one's key in
/// the owner's row (both sides of a one-to-one kept in step), a to-many's keys in its members'
/// rows, a many-to-many's links in a join table. Ordered relationships number their members as
/// Core Data does, 1024 apart.
extension ObjectWriter {
    /// Sets the relationship `name` of `id` to exactly `destinations` (in order, for ordered
    /// relationships); a to-one takes zero or one destination.
    public func relate(_ id: ObjectID, _ name: String, to destinations: [ObjectID]) throws {
        let entity = try self.name(of: id)
        guard let storage = layout.storage(entity: entity, relationship: name),
              let source = layout.model.entity(named: entity), let relationship = layout.model.relationship(named: name, in: source) else {
            throw StoreError(.unknownProperty, path: path, "entity \(entity) has no stored relationship \(name)",
                             fix: "use one of: \(relationshipNames(of: entity))")
        }
        try requireDestinations(destinations, of: relationship, from: entity)
        switch storage {
        case let .foreignKey(table, column, entityColumn):
            guard destinations.count <= 1 else {
                throw StoreError(.badValue, path: path, "\(entity).\(name) is to-one but was given \(destinations.count) destinations",
                                 fix: "give at most one destination")
            }
            try setForeignKey(of: id, table: table, column: column, entityColumn: entityColumn, to: destinations.first)
            // A one-to-one keeps a key on both sides.
            if let inverse = layout.inverse(of: relationship), !inverse.isToMany, let destination = destinations.first {
                try setForeignKey(of: destination, inverse.name, to: id)
            }
        case let .inverseForeignKey(table, column, entityColumn, orderColumn):
            try replaceMembers(of: id, table: table, column: column, entityColumn: entityColumn, orderColumn: orderColumn, with: destinations)
        case let .joinTable(join, sourceColumn, destinationColumn, orderColumn):
            try replaceLinks(of: id, join: join, sourceColumn: sourceColumn, destinationColumn: destinationColumn, orderColumn: orderColumn, with: destinations)
        }
    }

    /// Every destination is an instance of the relationship's destination entity or a subentity.
    private func requireDestinations(_ destinations: [ObjectID], of relationship: RelationshipDescription, from entity: String) throws {
        let allowed = layout.model.entity(named: relationship.destinationEntityName).map { [$0.name] + descendants(of: $0) } ?? []
        for destination in destinations {
            let destinationName = try self.name(of: destination)
            guard allowed.contains(destinationName) else {
                throw StoreError(.badValue, path: path, "\(entity).\(relationship.name) points to \(relationship.destinationEntityName), not to \(destinationName)",
                                 fix: "relate it to an instance of \(relationship.destinationEntityName)")
            }
        }
    }

    /// A to-one's key (and destination entity) in `id`'s row: `destination`, or NULL.
    private func setForeignKey(of id: ObjectID, table: String, column: String, entityColumn: String?, to destination: ObjectID?) throws {
        let q = ColumnNaming.quote
        var sets = ["\(q(column)) = ?"]
        var arguments: [SQLValue] = [destination.map { .integer($0.primaryKey) } ?? .null]
        if let entityColumn {
            sets.append("\(q(entityColumn)) = ?")
            arguments.append(destination.map { SQLValue($0.entityNumber) } ?? .null)
        }
        try db.cachedStatement(sql: "UPDATE \(t(table)) SET \(sets.joined(separator: ", ")) WHERE Z_PK = ?")
            .run(arguments + [.integer(id.primaryKey)])
    }

    /// The to-one `name` of `id`, set to `destination` (the other side of a one-to-one).
    private func setForeignKey(of id: ObjectID, _ name: String, to destination: ObjectID) throws {
        guard case let .foreignKey(table, column, entityColumn)? = layout.storage(entity: try self.name(of: id), relationship: name) else { return }
        try setForeignKey(of: id, table: table, column: column, entityColumn: entityColumn, to: destination)
    }

    /// A to-many kept in its members' rows: the old members let go, the new ones pointed at `id`.
    private func replaceMembers(of id: ObjectID, table: String, column: String, entityColumn: String?, orderColumn: String?,
                                with destinations: [ObjectID]) throws {
        let q = ColumnNaming.quote
        let typeSet = entityColumn.map { ", \(q($0)) = ?" } ?? ""
        let orderSet = orderColumn.map { ", \(q($0)) = ?" } ?? ""
        try db.cachedStatement(sql: "UPDATE \(t(table)) SET \(q(column)) = NULL\(typeSet)\(orderSet) WHERE \(q(column)) = ?")
            .run((entityColumn == nil ? [] : [SQLValue.null]) + (orderColumn == nil ? [] : [SQLValue.null]) + [.integer(id.primaryKey)])
        let update = try db.cachedStatement(sql: "UPDATE \(t(table)) SET \(q(column)) = ?\(typeSet)\(orderSet) WHERE Z_PK = ?")
        for (position, destination) in destinations.enumerated() {
            var arguments: [SQLValue] = [.integer(id.primaryKey)]
            if entityColumn != nil { arguments.append(SQLValue(id.entityNumber)) }
            if orderColumn != nil { arguments.append(.integer(Self.orderKey(position))) }
            try update.run(arguments + [.integer(destination.primaryKey)])
        }
    }

    /// A many-to-many: `id`'s links replaced by links to `destinations`.
    private func replaceLinks(of id: ObjectID, join: JoinTable, sourceColumn: String, destinationColumn: String, orderColumn: String?,
                              with destinations: [ObjectID]) throws {
        let q = ColumnNaming.quote
        try db.cachedStatement(sql: "DELETE FROM \(t(join.name)) WHERE \(q(sourceColumn)) = ?").run([.integer(id.primaryKey)])
        let columns = [sourceColumn, destinationColumn] + (orderColumn.map { [$0] } ?? [])
        let insert = try db.cachedStatement(sql: "INSERT INTO \(t(join.name)) (\(columns.map(q).joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))")
        for (position, destination) in destinations.enumerated() {
            var arguments: [SQLValue] = [.integer(id.primaryKey), .integer(destination.primaryKey)]
            if orderColumn != nil { arguments.append(.integer(Self.orderKey(position))) }
            try insert.run(arguments)
        }
    }

    /// Adds `destinations` to the to-many relationship `name` of `id`, keeping what is there
    /// (for a to-one, sets it).
    public func add(_ id: ObjectID, _ name: String, _ destinations: [ObjectID]) throws {
        let entity = try self.name(of: id)
        let q = ColumnNaming.quote
        switch layout.storage(entity: entity, relationship: name) {
        case .foreignKey?:
            try relate(id, name, to: Array(destinations.suffix(1)))
        case let .inverseForeignKey(table, column, entityColumn, orderColumn)?:
            var next = orderColumn == nil ? 0
                : try Int64.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM \(t(table)) WHERE \(q(column)) = ?"), arguments: [id.primaryKey]) ?? 0
            let sets = [q(column) + " = ?"] + (entityColumn.map { [q($0) + " = ?"] } ?? []) + (orderColumn.map { [q($0) + " = ?"] } ?? [])
            let update = try db.cachedStatement(sql: "UPDATE \(t(table)) SET \(sets.joined(separator: ", ")) WHERE Z_PK = ?")
            for destination in destinations {
                var arguments: [SQLValue] = [.integer(id.primaryKey)]
                if entityColumn != nil { arguments.append(SQLValue(id.entityNumber)) }
                if orderColumn != nil { arguments.append(.integer(Self.orderKey(Int(next)))); next += 1 }
                try update.run(arguments + [.integer(destination.primaryKey)])
            }
        case let .joinTable(join, sourceColumn, destinationColumn, orderColumn)?:
            var next = orderColumn == nil ? 0
                : try Int64.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM \(t(join.name)) WHERE \(q(sourceColumn)) = ?"), arguments: [id.primaryKey]) ?? 0
            let columns = [sourceColumn, destinationColumn] + (orderColumn.map { [$0] } ?? [])
            let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO \(t(join.name)) (\(columns.map(q).joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))")
            for destination in destinations {
                var arguments: [SQLValue] = [.integer(id.primaryKey), .integer(destination.primaryKey)]
                if orderColumn != nil { arguments.append(.integer(Self.orderKey(Int(next)))); next += 1 }
                try insert.run(arguments)
            }
        case nil:
            throw StoreError(.unknownProperty, path: path, "entity \(entity) has no stored relationship \(name)",
                             fix: "use one of: \(relationshipNames(of: entity))")
        }
    }

    /// Core Data's ordering keys: steps of 1024 from 1024 (position 0).
    static func orderKey(_ position: Int) -> Int64 { Int64(position + 1) * 1024 }
}
