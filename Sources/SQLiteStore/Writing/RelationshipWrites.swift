internal import GRDB
import ObjectModel

/// How an ``ObjectWriter`` sets relationships, by where the store keeps them: a to-one's key in
/// the owner's row (both sides of a one-to-one kept in step), a to-many's keys in its members'
/// rows, a many-to-many's links in a join table. Ordered relationships number their members as
/// Core Data does, 1024 apart.
///
/// A migration sets relationships once per object, so what each write needs — the storage, the
/// entities a destination may be, the statements — is worked out once per relationship
/// (``RelationshipWritePlan``), not per call.
extension ObjectWriter {
    /// Sets the relationship `name` of `id` to exactly `destinations` (in order, for ordered
    /// relationships); a to-one takes zero or one destination.
    package func relate(_ id: ObjectID, _ name: String, to destinations: [ObjectID]) throws {
        try writeQueuedInserts()
        let plan = try writePlan(id, name)
        try requireDestinations(destinations, of: plan)
        switch plan.storage {
        case .foreignKey:
            guard destinations.count <= 1 else {
                throw StoreError(
                    .badValue, path: path,
                    "\(plan.entity).\(name) is to-one but was given \(destinations.count) destinations",
                    fix: "give at most one destination")
            }
            try setForeignKey(of: id, plan, to: destinations.first)
            // A one-to-one keeps a key on both sides.
            if let inverse = plan.inverseToOne, let destination = destinations.first,
                let other = try? writePlan(destination, inverse)
            {
                try setForeignKey(of: destination, other, to: id)
            }
        case let .inverseForeignKey(_, _, entityColumn, orderColumn):
            try db.cachedStatement(sql: plan.detachAll).run(
                (entityColumn == nil ? [] : [SQLValue.null]) + (orderColumn == nil ? [] : [SQLValue.null]) + [
                    .integer(id.primaryKey)
                ])
            try attachMembers(destinations, to: id, plan, from: 0)
        case .joinTable:
            try db.cachedStatement(sql: plan.detachAll).run([.integer(id.primaryKey)])
            try insertLinks(destinations, from: id, plan, from: 0)
        }
    }

    /// Adds `destinations` to the to-many relationship `name` of `id`, keeping what is there
    /// (for a to-one, sets it).
    package func add(_ id: ObjectID, _ name: String, _ destinations: [ObjectID]) throws {
        let plan = try writePlan(id, name)
        if plan.links != nil {
            // An unordered many-to-many's links are only inserted, never read back while the
            // writer works: they wait in its queue with the new rows.
            try requireDestinations(destinations, of: plan)
            return try insertLinks(destinations, from: id, plan, from: 0)
        }
        try writeQueuedInserts()
        switch plan.storage {
        case .foreignKey:
            try relate(id, name, to: Array(destinations.suffix(1)))
        case .inverseForeignKey, .joinTable:
            try requireDestinations(destinations, of: plan)
            let next =
                plan.orders
                ? try Int64.fetchOne(db.cachedStatement(sql: plan.countMembers), arguments: [id.primaryKey]) ?? 0 : 0
            if case .inverseForeignKey = plan.storage {
                try attachMembers(destinations, to: id, plan, from: Int(next))
            } else {
                try insertLinks(destinations, from: id, plan, from: Int(next))
            }
        }
    }

    /// Core Data's ordering keys: steps of 1024 from 1024 (position 0).
    static func orderKey(_ position: Int) -> Int64 { Int64(position + 1) * 1024 }

    /// The plan for relationship `name` of `id`'s entity, worked out on first use.
    func writePlan(_ id: ObjectID, _ name: String) throws -> RelationshipWritePlan {
        let key = RelationshipWritePlan.Key(entityNumber: id.entityNumber, name: name)
        if let known = writePlans[key] { return known }
        let entity = try self.name(of: id)
        guard let storage = layout.storage(entity: entity, relationship: name),
            case .relationship(let relationship, let allowed)? = layout.property(name, of: entity)
        else {
            throw StoreError(
                .unknownProperty, path: path, "entity \(entity) has no stored relationship \(name)",
                fix: "use one of: \(relationshipNames(of: entity))")
        }
        let inverse = layout.inverse(of: relationship).flatMap { $0.isToMany ? nil : $0.name }
        let plan = RelationshipWritePlan(
            entity: entity, relationship: relationship, storage: storage, allowed: allowed,
            inverseToOne: inverse, table: t)
        writePlans[key] = plan
        return plan
    }

    /// Every destination is an instance of the relationship's destination entity or a subentity.
    func requireDestinations(_ destinations: [ObjectID], of plan: RelationshipWritePlan) throws {
        for destination in destinations where !plan.allowed.contains(destination.entityNumber) {
            let destinationName = try self.name(of: destination)
            throw StoreError(
                .badValue, path: path,
                """
                \(plan.entity).\(plan.relationship.name) points to \(plan.relationship.destinationEntityName), not \
                to \(destinationName)
                """,
                fix: "relate it to an instance of \(plan.relationship.destinationEntityName)")
        }
    }

    /// A to-one's key (and destination entity) in `id`'s row: `destination`, or NULL.
    private func setForeignKey(of id: ObjectID, _ plan: RelationshipWritePlan, to destination: ObjectID?) throws {
        guard case let .foreignKey(_, _, entityColumn) = plan.storage else { return }
        var arguments: [SQLValue] = [destination.map { .integer($0.primaryKey) } ?? .null]
        if entityColumn != nil { arguments.append(destination.map { SQLValue($0.entityNumber) } ?? .null) }
        try db.cachedStatement(sql: plan.attach).run(arguments + [.integer(id.primaryKey)])
    }

    /// A to-many kept in its members' rows: each of `destinations` pointed at `id`, positions
    /// counting on from `first`.
    private func attachMembers(
        _ destinations: [ObjectID], to id: ObjectID, _ plan: RelationshipWritePlan, from first: Int
    ) throws {
        guard case let .inverseForeignKey(_, _, entityColumn, orderColumn) = plan.storage else { return }
        let update = try db.cachedStatement(sql: plan.attach)
        for (offset, destination) in destinations.enumerated() {
            var arguments: [SQLValue] = [.integer(id.primaryKey)]
            if entityColumn != nil { arguments.append(SQLValue(id.entityNumber)) }
            if orderColumn != nil { arguments.append(.integer(Self.orderKey(first + offset))) }
            try update.run(arguments + [.integer(destination.primaryKey)])
        }
    }

    /// A many-to-many: a link from `id` to each of `destinations` (kept if it is there), positions
    /// counting on from `first`.
    private func insertLinks(
        _ destinations: [ObjectID], from id: ObjectID, _ plan: RelationshipWritePlan, from first: Int
    ) throws {
        if let links = plan.links {
            for destination in destinations {
                try queue([.integer(id.primaryKey), .integer(destination.primaryKey)], in: links)
            }
            return
        }
        let insert = try db.cachedStatement(sql: plan.attach)
        for (offset, destination) in destinations.enumerated() {
            var arguments: [SQLValue] = [.integer(id.primaryKey), .integer(destination.primaryKey)]
            if plan.orders { arguments.append(.integer(Self.orderKey(first + offset))) }
            try insert.run(arguments)
        }
    }
}

/// What writing one relationship of one entity needs, worked out once per writer: where it is
/// stored, which entity numbers its destinations may have, the other side of a one-to-one, and
/// the statements (``ObjectWriter`` runs them through SQLite's statement cache). A class: it is
/// looked up for every relationship a policy sets, and copying it out cost more than the write.
final class RelationshipWritePlan {
    struct Key: Hashable {
        let entityNumber: Int
        let name: String
    }

    let entity: String
    let relationship: RelationshipDescription
    let storage: StoreLayout.RelationshipStorage
    let allowed: Set<Int>
    /// The inverse's name when it is a to-one (a one-to-one keeps a key on both sides).
    let inverseToOne: String?
    /// Sets a to-one's key; points a member at its owner; inserts a link.
    let attach: String
    /// Lets go of every member, or deletes every link, of an owner (to-manys only).
    let detachAll: String
    /// Counts an owner's members or links (the next position of an ordered to-many).
    let countMembers: String
    /// Whether positions are kept.
    let orders: Bool
    /// An unordered many-to-many's queue of new links (QueuedInserts.swift): `INSERT OR IGNORE`,
    /// so a link queued twice, or already there, is one link, as written at once.
    let links: RowQueue?

    init(
        entity: String, relationship: RelationshipDescription, storage: StoreLayout.RelationshipStorage,
        allowed: Set<Int>,
        inverseToOne: String?, table t: (String) -> String
    ) {
        self.entity = entity
        self.relationship = relationship
        self.storage = storage
        self.allowed = allowed
        self.inverseToOne = inverseToOne
        let q = SQLIdentifier.quote
        switch storage {
        case let .foreignKey(table, column, entityColumn):
            let sets = ["\(q(column)) = ?"] + (entityColumn.map { ["\(q($0)) = ?"] } ?? [])
            attach = "UPDATE \(t(table)) SET \(sets.joined(separator: ", ")) WHERE Z_PK = ?"
            detachAll = ""
            countMembers = ""
            orders = false
            links = nil
        case let .inverseForeignKey(table, column, entityColumn, orderColumn):
            let typeSet = entityColumn.map { ", \(q($0)) = ?" } ?? ""
            let orderSet = orderColumn.map { ", \(q($0)) = ?" } ?? ""
            attach = "UPDATE \(t(table)) SET \(q(column)) = ?\(typeSet)\(orderSet) WHERE Z_PK = ?"
            detachAll = "UPDATE \(t(table)) SET \(q(column)) = NULL\(typeSet)\(orderSet) WHERE \(q(column)) = ?"
            countMembers = "SELECT count(*) FROM \(t(table)) WHERE \(q(column)) = ?"
            orders = orderColumn != nil
            links = nil
        case let .joinTable(join, sourceColumn, destinationColumn, orderColumn):
            let columns = [sourceColumn, destinationColumn] + (orderColumn.map { [$0] } ?? [])
            attach =
                """
                INSERT OR IGNORE INTO \(t(join.name)) (\(columns.map(q).joined(separator: ", "))) VALUES \
                (\(columns.map { _ in "?" }.joined(separator: ", ")))
                """
            detachAll = "DELETE FROM \(t(join.name)) WHERE \(q(sourceColumn)) = ?"
            countMembers = "SELECT count(*) FROM \(t(join.name)) WHERE \(q(sourceColumn)) = ?"
            orders = orderColumn != nil
            links =
                orders
                ? nil
                : RowQueue(
                    table: join.name,
                    insertInto: "INSERT OR IGNORE INTO \(t(join.name)) (\(columns.map(q).joined(separator: ", ")))",
                    width: 2)
        }
    }
}
