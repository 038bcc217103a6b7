internal import GRDB
import ObjectModel

/// The objects a run of owners reach through one to-many relationship, read with one statement:
/// what ``ObjectPrefetch`` reads ahead for each batch once a migration's policy walks that
/// relationship from the instances it visits. One statement per batch replaces two per owner
/// (the walk, then reading each member), and runs on the prefetch thread, off the busy core.
package struct RelatedObjects: Sendable {
    /// The owners' entity number, and the keys whose members are all here.
    package let entityNumber: Int
    package let keys: ClosedRange<Int64>
    /// Each owner's members, in the relationship's order (by `Z_PK` when unordered); an owner
    /// with none is absent.
    let members: [Int64: [StoredObject]]

    /// Whether `owner`'s members are here (none or some).
    package func covers(_ owner: ObjectID) -> Bool {
        owner.entityNumber == entityNumber && keys.contains(owner.primaryKey)
    }

    /// `owner`'s members, for an owner it ``covers(_:)``.
    package func members(of owner: ObjectID) -> [StoredObject] { members[owner.primaryKey] ?? [] }
}

extension ObjectReader {
    /// The members of to-many `name` of the instances of entity `number` keyed `keys`, in the
    /// order ``destinations(of:_:)`` gives, as whole objects; at most about `limit` of them (the
    /// range is cut short after the last owner read whole). Nil when this cannot be read by a
    /// range of an index (a to-one, or no index leads with the column naming the owner): then a
    /// range would read the whole table.
    package func relatedObjects(of number: Int, keys: ClosedRange<Int64>, through name: String, limit: Int) throws
        -> RelatedObjects?
    {
        guard let entity = layout.numbering.name(of: number),
            let storage = layout.storage(entity: entity, relationship: name),
            case .relationship(let relationship, _)? = layout.property(name, of: entity), relationship.isToMany
        else { return nil }
        guard let (sql, ownerTable, ownerColumn, memberTable) = relatedQuery(storage, relationship) else { return nil }
        guard try LookupIndexes.hasIndex(db, schema: schema, leadingWith: ownerColumn, on: ownerTable) else {
            return nil
        }
        let statement = try db.cachedStatement(sql: sql)
        let ownerIndex = statement.columnCount - 1
        let names = statement.columnNames
        var members: [Int64: [StoredObject]] = [:]
        let entityColumn = CheckedColumn(path: path, table: memberTable, column: "Z_ENT")
        var read = 0, lastOwner: Int64?
        do {
            try statement.forEachRow([.integer(keys.lowerBound), .integer(keys.upperBound), .integer(Int64(limit) + 1)])
            { column in
                read += 1
                guard case .integer(let owner) = column(ownerIndex) else { return }
                let object = try decoder(
                    for: try entityColumn.requiredInt(column(Decoder.entityColumn).databaseValue), columns: names
                ).object(column)
                members[owner, default: []].append(object)
                lastOwner = owner
            }
        } catch let error as DatabaseError { throw StoreError.from(error, path: path) }
        guard read > limit, let lastOwner else {
            return RelatedObjects(entityNumber: number, keys: keys, members: members)
        }
        // Cut short: the last owner's members may go on past the limit.
        members[lastOwner] = nil
        guard lastOwner > keys.lowerBound else { return nil }
        return RelatedObjects(entityNumber: number, keys: keys.lowerBound...lastOwner - 1, members: members)
    }

    /// The query reading a to-many's members by a range of owners, with the table and column the
    /// owners are named in (an index must lead with it) and the members' table; nil for a to-one.
    private func relatedQuery(_ storage: StoreLayout.RelationshipStorage, _ relationship: RelationshipDescription)
        -> (sql: String, ownerTable: String, ownerColumn: String, memberTable: String)?
    {
        let q = SQLIdentifier.quote
        let sql: String, ownerTable: String, ownerColumn: String, memberTable: String
        switch storage {
        case .foreignKey:
            return nil
        case let .inverseForeignKey(table, column, _, orderColumn):
            (ownerTable, ownerColumn, memberTable) = (table, column, table)
            sql = """
                SELECT d.*, d.\(q(column)) FROM \(t(table)) d WHERE d.\(q(column)) BETWEEN ? AND ?
                ORDER BY d.\(q(column)), \(orderColumn.map { "d.\(q($0)), " } ?? "")d.Z_PK LIMIT ?
                """
        case let .joinTable(join, sourceColumn, destinationColumn, orderColumn):
            guard let destinationTable = layout.table(for: relationship.destinationEntityName)?.name else { return nil }
            (ownerTable, ownerColumn, memberTable) = (join.name, sourceColumn, destinationTable)
            sql = """
                SELECT d.*, j.\(q(sourceColumn)) FROM \(t(join.name)) j JOIN \(t(destinationTable)) d ON d.Z_PK = j.\(q(destinationColumn))
                WHERE j.\(q(sourceColumn)) BETWEEN ? AND ? ORDER BY j.\(q(sourceColumn)), \(orderColumn.map { "j.\(q($0)), " } ?? "")d.Z_PK LIMIT ?
                """
        }
        return (sql, ownerTable, ownerColumn, memberTable)
    }
}
