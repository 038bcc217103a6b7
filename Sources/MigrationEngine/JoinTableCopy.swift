import GRDB
import ObjectModel
import SQLiteStore

/// Fills a new many-to-many join table from wherever the source kept those links: its own join
/// table, a to-one key (to-one → to-many), or the other side's key.
struct JoinTableCopy {
    let inference: InferredMapping
    let source: StoreLayout
    let destination: StoreLayout
    let db: Database

    /// Links of the destination relationship `side` as `owner, target, position` rows, or nil.
    private func links(_ side: JoinTable.Side) -> String? {
        let q = ColumnNaming.quote
        if let origin = inference.entitySources[side.entity], let from = inference.propertySources[side.entity]?[side.relationship],
           let storage = source.storage(entity: origin, relationship: from) {
            switch storage {
            case let .joinTable(join, sourceColumn, destinationColumn, order):
                return "SELECT \(q(sourceColumn)) AS owner, \(q(destinationColumn)) AS target, \(order.map(q) ?? "NULL") AS position FROM \(q(join.name))"
            case let .foreignKey(table, column, _):
                let numbers = source.numbering.numbers(inHierarchyOf: source.numbering.number(of: origin) ?? 0).map(String.init).joined(separator: ",")
                return "SELECT Z_PK AS owner, \(q(column)) AS target, NULL AS position FROM \(q(table)) WHERE \(q(column)) IS NOT NULL AND Z_ENT IN (\(numbers))"
            case let .inverseForeignKey(table, column, _, order):
                return "SELECT \(q(column)) AS owner, Z_PK AS target, \(order.map(q) ?? "NULL") AS position FROM \(q(table)) WHERE \(q(column)) IS NOT NULL"
            }
        }
        return nil
    }

    func fill(_ table: String, join: JoinTable) throws {
        let q = ColumnNaming.quote
        guard let first = join.sides.first else { return }
        var query: String?
        var ownerColumn: String, targetColumn: String
        if join.sides.count == 2 {
            // Side 0's column holds side 0's destinations, i.e. the owners of side 1's links.
            let (a, b) = (join.sides[0], join.sides[1])
            if let links = links(b) {
                query = links
                (ownerColumn, targetColumn) = (a.column, b.column)
            } else if let links = links(a) {
                query = links
                (ownerColumn, targetColumn) = (b.column, a.column)
            } else { return }
        } else {
            query = links(first)
            (ownerColumn, targetColumn) = (join.sourceColumn ?? "", first.column)
        }
        guard let query else { return }
        var names = [q(ownerColumn), q(targetColumn)]
        var values = ["owner", "target"]
        for side in join.sides {
            guard let order = side.orderColumn else { continue }
            names.append(q(order))
            let partition = side.column == targetColumn ? "owner" : "target"
            values.append("(row_number() OVER (PARTITION BY \(partition) ORDER BY coalesce(position, 0), \(partition == "owner" ? "target" : "owner"))) * 1024")
        }
        try db.execute(sql: "INSERT OR IGNORE INTO \(q(table)) (\(names.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM (\(query))")
    }
}
