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
            // The to-one's inverse, an ordered to-many, kept each owner's position beside the key
            // (`Z_FOK_<to-one>`): DuckDuckGo's `favoriteFolder` ↔ ordered `favorites` (V1–V3)
            // becomes a many-to-many (V4), whose ordered side keeps those positions.
            var inverseOrder: String?
            if let other, case let .inverseForeignKey(otherTable, otherColumn, _, order)? = sourceStorage(of: other),
                otherTable == table, otherColumn == column
            {
                inverseOrder = order
            }
            return
                """
                SELECT Z_PK AS owner, \(q(column)) AS target, NULL AS position, \(inverseOrder.map(q) ?? "NULL") AS \
                inverse_position FROM \(q(table)) WHERE \(q(column)) IS NOT NULL AND Z_ENT IN (\(numbers))
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

    /// A source join table that already holds exactly a destination join table's links, column
    /// for column, under older names: the step keeps it in place, renamed.
    struct InPlace: Equatable {
        /// The source table's name.
        var source: String
        /// Its columns whose names change, old name → new name.
        var columns: [String: String]
    }

    /// The source join table that holds `join`'s links as they are, if any: the table both sides
    /// of the pair kept their links in, with a column for each side's destinations and a position
    /// column exactly where the destination orders a side. Core Data keeps such a table in place,
    /// renaming it and its columns where entity numbers or the naming side changed (its stores
    /// keep the order of the columns the table was made with, and its old index beside the new:
    /// Wire's 2.96 `Z_25TRUSTEDBYCLIENTS (Z_25TRUSTEDBYCLIENTS, Z_25TRUSTEDCLIENTS)` with
    /// `Z_25TRUSTEDCLIENTS_Z_25TRUSTEDCLIENTS_INDEX`; `NextRealStoreTests`). The rows stay as they
    /// are, so every link still means what it meant, its position included, and a step that only
    /// adds an attribute beside a many-to-many touches no link (`chrysalis-bench --scenario
    /// add-attribute-many-to-many`).
    func inPlace(_ join: JoinTable) -> InPlace? {
        guard join.sides.count == 2, join.sourceColumn == nil,
            case let .joinTable(first, firstOwner, firstColumn, firstOrder)? = sourceStorage(of: join.sides[0]),
            case let .joinTable(second, secondOwner, secondColumn, secondOrder)? = sourceStorage(of: join.sides[1]),
            first.name == second.name, firstOwner == secondColumn, secondOwner == firstColumn,
            firstColumn != secondColumn,
            (join.sides[0].orderColumn == nil) == (firstOrder == nil),
            (join.sides[1].orderColumn == nil) == (secondOrder == nil)
        else { return nil }
        var columns: [String: String] = [firstColumn: join.sides[0].column, secondColumn: join.sides[1].column]
        if let firstOrder, let order = join.sides[0].orderColumn { columns[firstOrder] = order }
        if let secondOrder, let order = join.sides[1].orderColumn { columns[secondOrder] = order }
        guard Set(first.columns) == Set(columns.keys) else { return nil }
        return InPlace(source: first.name, columns: columns.filter { $0.key != $0.value })
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
