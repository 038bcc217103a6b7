import ObjectModel
import SQLiteStore

/// Fills a new many-to-many join table from wherever the source kept those links: its own join
/// table, a to-one key (to-one → to-many), or the other side's key.
struct JoinTableCopy {
    let inference: InferredMapping
    let source: StoreLayout
    let destination: StoreLayout

    /// Links of the destination relationship `side` as `owner, target, position, inverse_position`
    /// rows, or nil: `position` orders `side`'s targets per owner, `inverse_position` orders the
    /// owners per target when the inverse relationship `other` kept its positions in the same
    /// source join table (both sides of an ordered many-to-many).
    private func links(_ side: JoinTable.Side, inverse other: JoinTable.Side?) -> String? {
        let q = SQLIdentifier.quote
        guard let origin = inference.entitySources[side.entity], let storage = sourceStorage(of: side) else {
            return nil
        }
        switch storage {
        case let .joinTable(join, sourceColumn, destinationColumn, order):
            var inverseOrder: String?
            if let other, case let .joinTable(otherJoin, _, _, found)? = sourceStorage(of: other),
                otherJoin.name == join.name
            {
                inverseOrder = found
            }
            return
                "SELECT \(q(sourceColumn)) AS owner, \(q(destinationColumn)) AS target, \(order.map(q) ?? "NULL") AS position, "
                + "\(inverseOrder.map(q) ?? "NULL") AS inverse_position FROM \(q(join.name))"
        case let .foreignKey(table, column, _):
            let numbers = source.numbering.numbers(inHierarchyOf: source.numbering.number(of: origin) ?? 0).map(
                String.init
            ).joined(separator: ",")
            return
                """
                SELECT Z_PK AS owner, \(q(column)) AS target, NULL AS position, NULL AS inverse_position FROM \
                \(q(table)) WHERE \(q(column)) IS NOT NULL AND Z_ENT IN (\(numbers))
                """
        case let .inverseForeignKey(table, column, _, order):
            return
                """
                SELECT \(q(column)) AS owner, Z_PK AS target, \(order.map(q) ?? "NULL") AS position, NULL AS \
                inverse_position FROM \(q(table)) WHERE \(q(column)) IS NOT NULL
                """
        }
    }

    /// How the source stored the links of the destination relationship `side`; nil when it had none.
    private func sourceStorage(of side: JoinTable.Side) -> StoreLayout.RelationshipStorage? {
        guard let origin = inference.entitySources[side.entity],
            let from = inference.propertySources[side.entity]?[side.relationship]
        else { return nil }
        return source.storage(entity: origin, relationship: from)
    }

    /// Whether ``fill(_:join:)`` would copy the source's join table of the same name into `join`
    /// row for row, each column into itself: then the step leaves that table as it is, instead of
    /// copying every link of a store whose change is elsewhere (one attribute added beside a
    /// many-to-many rebuilt every link; `chrysalis-bench --scenario add-attribute-many-to-many`
    /// times that step). Only for an unordered pair, whose copy numbers no positions, and a source
    /// table with exactly the destination's columns; the keys of both sides stay as they are in
    /// place, so every link still means what it meant. The table kept is the one a rebuild makes:
    /// every join table in the real stores of
    /// `../shared/fixtures/coredata` (753 in 105 stores, November 2026) is `( <side> INTEGER,
    /// <side> INTEGER, PRIMARY KEY (<side>, <side>) )`, with positions appended for an ordered pair.
    func copiesItself(_ join: JoinTable) -> Bool {
        guard join.sides.count == 2, join.sourceColumn == nil, join.sides.allSatisfy({ $0.orderColumn == nil }),
            let old = source.joinTables.first(where: { $0.name == join.name }), old.columns == join.columns
        else { return false }
        guard let (read, owner) = sides(join),
            case let .joinTable(from, sourceColumn, destinationColumn, nil)? = sourceStorage(of: read)
        else { return false }
        return from.name == old.name && sourceColumn == owner.column && destinationColumn == read.column
    }

    /// Of a pair, the side whose source links fill the table (side 1's, else side 0's) and the
    /// other side, whose column holds the links' owners; nil when the source kept neither.
    private func sides(_ join: JoinTable) -> (read: JoinTable.Side, owner: JoinTable.Side)? {
        let (a, b) = (join.sides[0], join.sides[1])
        if sourceStorage(of: b) != nil { return (b, a) }
        if sourceStorage(of: a) != nil { return (a, b) }
        return nil
    }

    /// The statement that fills the new join table `table` (made for `join`), or nil when the
    /// source kept none of its links.
    func fill(_ table: String, join: JoinTable) -> SQLStatement? {
        let q = SQLIdentifier.quote
        guard let first = join.sides.first else { return nil }
        let query: String
        let ownerColumn: String, targetColumn: String
        if join.sides.count == 2 {
            // Side 0's column holds side 0's destinations, i.e. the owners of side 1's links.
            guard let (read, owner) = sides(join), let links = links(read, inverse: owner) else { return nil }
            query = links
            (ownerColumn, targetColumn) = (owner.column, read.column)
        } else {
            guard let links = links(first, inverse: nil) else { return nil }
            query = links
            (ownerColumn, targetColumn) = (join.sourceColumn ?? "", first.column)
        }
        var names = [q(ownerColumn), q(targetColumn)]
        var values = ["owner", "target"]
        for side in join.sides {
            guard let order = side.orderColumn else { continue }
            names.append(q(order))
            // A side's targets, per owner: kept where the source had positions, else numbered in
            // key order 1024 apart, as Core Data numbers them.
            let (position, partition, key) =
                side.column == targetColumn ? ("position", "owner", "target") : ("inverse_position", "target", "owner")
            values.append("coalesce(\(position), row_number() OVER (PARTITION BY \(partition) ORDER BY \(key)) * 1024)")
        }
        return SQLStatement(
            """
            INSERT OR IGNORE INTO \(q(table)) (\(names.joined(separator: ", "))) SELECT \
            \(values.joined(separator: ", ")) FROM (\(query))
            """
        )
    }
}
