import ObjectModel

/// A many-to-many join table (`Z_<n><REL>`): one row per link, one column per side holding that
/// side's destination `Z_PK`, and a `Z_FOK_` position column for each ordered side.
///
/// Names are *predicted* only for a store Chrysalis creates; a store that exists is read by the
/// names it has (``reconciled(with:numbering:)``), because Core Data renames join tables in its own
/// in-place migrations and leaves their columns in the order they were made. The prediction is Core
/// Data's own rule, which names every join table of the real stores in `../shared/fixtures/coredata`
/// as Core Data named it (755 in 84 stores, 162 of them self-referencing; `CreatedLayoutTests`):
/// - the entities are visited in Core Data's order (``EntityNumbering/precedes(_:_:)``), and each
///   entity's relationships in the order its SQL model meets them (``PropertyWalk``, no order of
///   names); the first relationship of a many-to-many pair met names the table, `Z_<n><REL>` with
///   `n` the number of the entity declaring it. For two entities, the one first in Core Data's order;
///   for a pair on one entity, whichever the walk meets first (Wire's `UserClient` names
///   `Z_nIGNOREDBYCLIENTS` up to 2.3 and `…IGNOREDCLIENTS` after, `…TRUSTEDCLIENTS` from 2.4 to 2.95 and
///   `…TRUSTEDBYCLIENTS` from 2.96 on; DuckDuckGo's `favorites` ↔ `favoriteFolders` is `Z_1FAVORITES`);
/// - the columns are `Z_<n of the namer's entity><INVERSE>` then `Z_<n of the inverse's
///   entity><NAMER>`, each holding its relationship's destinations, and `Z_FOK_` + a column's name
///   after `Z_` for each column whose relationship is ordered, in the same order;
/// - column names are unique across all join tables, taken in the order the tables are met, the
///   namer's column (and its position column) before the inverse's: a second `Z_24USERS` becomes
///   `Z_24USERS1` (Wire 2.90: `Reaction.users` keeps `Z_24USERS`, `SystemMessage.users` gets
///   `Z_24USERS1`, the entities' order, not their numbers').
package struct JoinTable: Hashable, Sendable {
    /// One relationship of the pair.
    package struct Side: Hashable, Sendable {
        /// The entity declaring the relationship.
        package var entity: String
        /// The relationship's name.
        package var relationship: String
        /// The column holding this relationship's destination keys.
        package var column: String
        /// The position column when the relationship is ordered.
        package var orderColumn: String?
    }

    /// The table's name.
    package var name: String
    /// The two relationships (one, for a to-many without inverse); the last names the table.
    package var sides: [Side]
    /// For a to-many without inverse: the column holding the source keys.
    package var sourceColumn: String?

    /// All columns, in table order.
    package var columns: [String] {
        sides.map(\.column) + (sourceColumn.map { [$0] } ?? []) + sides.compactMap(\.orderColumn)
    }

    /// The join tables `model` needs, named as Core Data names them in a new store, its entities'
    /// properties met in the order `walks` gives (``PropertyWalk``).
    static func all(
        in model: ManagedObjectModel, numbering: EntityNumbering, walks: [String: PropertyWalk.Entity]
    ) -> [JoinTable] {
        var tables: [JoinTable] = []
        var done: Set<String> = []
        var takenNames: Set<String> = [], takenColumns: Set<String> = []
        for entity in model.entities.sorted(by: { EntityNumbering.precedes($0.name, $1.name) })
        where numbering.number(of: entity.name) != nil {
            guard let walk = walks[entity.name] else { continue }
            for key in walk.keys {
                guard let (declarer, relationship) = walk.relationships[key], relationship.isToMany,
                    !done.contains("\(declarer.name).\(relationship.name)"),
                    let destination = model.entity(named: relationship.destinationEntityName)
                else { continue }
                let inverse = relationship.inverseName.flatMap { walks[destination.name]?.relationships[$0] }
                if let inverse, !inverse.relationship.isToMany { continue }
                done.insert("\(declarer.name).\(relationship.name)")
                var pair: [Side] = []
                if let inverse,
                    inverse.declarer.name != declarer.name || inverse.relationship.name != relationship.name
                {
                    done.insert("\(inverse.declarer.name).\(inverse.relationship.name)")
                    pair.append(
                        Side(entity: inverse.declarer.name, relationship: inverse.relationship.name, column: ""))
                }
                pair.append(Side(entity: declarer.name, relationship: relationship.name, column: ""))
                tables.append(
                    make(pair, model: model, numbering: numbering, takenNames: &takenNames, takenColumns: &takenColumns)
                )
            }
        }
        return tables
    }

    /// The table of `pair` (the inverse's side, then the side naming the table; only the latter
    /// for a to-many without inverse), its column names made unique in `takenColumns`.
    private static func make(
        _ pair: [Side], model: ManagedObjectModel, numbering: EntityNumbering, takenNames: inout Set<String>,
        takenColumns: inout Set<String>
    ) -> JoinTable {
        let number = { (entity: String) in numbering.number(of: entity) ?? 0 }
        let relationship = { (side: Side) in
            model.entity(named: side.entity).flatMap { model.relationship(named: side.relationship, in: $0) }
        }
        let namer = pair[pair.count - 1]
        let name = ColumnNaming.unique("Z_\(number(namer.entity))\(namer.relationship.uppercased())", in: &takenNames)
        var sides = pair
        // A side's column is prefixed with the number of the entity declaring the other side (a
        // to-many without inverse: its destination's); the namer's columns are named first.
        for index in sides.indices.reversed() {
            let prefix =
                pair.count == 2
                ? number(pair[1 - index].entity)
                : relationship(namer).flatMap { numbering.number(of: $0.destinationEntityName) } ?? 0
            let base = "Z_\(prefix)\(sides[index].relationship.uppercased())"
            sides[index].column = ColumnNaming.unique(base, in: &takenColumns)
            if relationship(sides[index])?.isOrdered == true {
                sides[index].orderColumn = ColumnNaming.unique("Z_FOK_" + base.dropFirst(2), in: &takenColumns)
            }
        }
        var source: String?
        if pair.count == 1 {
            source = ColumnNaming.unique("Z_\(number(namer.entity))\(namer.entity.uppercased())", in: &takenColumns)
        }
        return JoinTable(name: name, sides: sides, sourceColumn: source)
    }

    /// This join table as the store whose tables (name → columns) are `tables` holds it: the
    /// table named after either side's relationship, each column found by its side's name
    /// (`Z_<n><REL>`, or with the digits Core Data appends to a clashing name). `nil` when the
    /// store has no such table.
    func reconciled(with tables: [String: [String]], numbering: EntityNumbering) -> JoinTable? {
        let candidates = sides.reversed().map {
            "Z_\(numbering.number(of: $0.entity) ?? 0)\($0.relationship.uppercased())"
        }
        for candidate in candidates {
            for (table, columns) in tables.sorted(by: { $0.key < $1.key })
            where ColumnNaming.isName(table, withSuffixOf: candidate) {
                if let found = matched(table, columns: columns) { return found }
            }
        }
        return nil
    }

    /// This join table with its columns as `columns` name them, if each side's column is there.
    private func matched(_ table: String, columns: [String]) -> JoinTable? {
        var claimed: Set<String> = []
        func find(_ predicted: String) -> String? {
            let stem = String(predicted.reversed().drop { $0.isNumber }.reversed())
            let found =
                columns.first { $0 == predicted && !claimed.contains($0) }
                ?? columns.first { !claimed.contains($0) && ColumnNaming.isName($0, withSuffixOf: stem) }
            if let found { claimed.insert(found) }
            return found
        }
        var result = self
        result.name = table
        for index in sides.indices {
            guard let column = find(sides[index].column) else { return nil }
            result.sides[index].column = column
            if sides[index].orderColumn != nil {
                let order = "Z_FOK_" + column.dropFirst(2)
                result.sides[index].orderColumn = columns.contains(order) ? order : nil
            }
        }
        if let sourceColumn {
            guard let column = find(sourceColumn) else { return nil }
            result.sourceColumn = column
        }
        return result
    }
}
