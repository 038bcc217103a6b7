import ObjectModel

/// A many-to-many join table (`Z_<n><REL>`): one row per link, one column per side holding that
/// side's destination `Z_PK`, and a `Z_FOK_` position column for each ordered side.
///
/// Names are *predicted* only for a store Chrysalis creates; a store that exists is read by the
/// names it has (``reconciled(with:numbering:)``), because real stores differ from predictions:
/// Core Data renames join tables during its own in-place migrations and has changed its choices
/// across releases. The prediction, from real stores (`../shared/fixtures/coredata`, and 728
/// pairs between two entities in 80 stores of one shipped app):
/// - the table is named after the relationship declared on the entity with the lower entity
///   number, prefixed with that number. For a self-referencing pair (both relationships on one
///   entity) the store a Core Data (framework 641) created fresh names it after the relationship
///   whose name sorts first (`Z_14IGNOREDBYCLIENTS`); stores Core Data migrated later carry the
///   other name, so no rule of the model alone fits every store (a study of CoreFoundation's
///   dictionary order ruled out a hash-order walk: the two stores archive the pair in the same
///   order yet name the table oppositely). All 82 of Wire's stores agree: 2.3 (made fresh) names
///   `UserClient`'s pairs `Z_14TRUSTEDBYCLIENTS`, 2.4 (three attributes added to `UserClient`, the
///   pairs declared identically) `Z_14TRUSTEDCLIENTS`, 2.96 (one attribute added) `…TRUSTEDBYCLIENTS`
///   again while `…IGNOREDCLIENTS` stays: the choice follows the entity's whole property set, as
///   an in-memory hash order would. Chrysalis predicts the first-by-name, as that store has it;
/// - the first column belongs to the relationship that does not name the table, the second to
///   the one that does; each is named after its relationship, prefixed with the number of that
///   relationship's destination (`Z_16SHOWINGUSERADDED`, `Z_24ADDEDUSERS`);
/// - column names are unique across all join tables: a second `Z_24USERS` becomes `Z_24USERS1`,
///   pairs taken in the order of their entities' names (Wire 2.90: `Reaction.users` keeps
///   `Z_24USERS`, `SystemMessage.users` gets `Z_24USERS1`).
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

    /// The join tables `model` needs, named as Core Data names them in a new store.
    static func all(in model: ManagedObjectModel, numbering: EntityNumbering) -> [JoinTable] {
        var tables: [JoinTable] = []
        var done: Set<String> = []
        var takenNames: Set<String> = [], takenColumns: Set<String> = []
        let byName = { (a: String, b: String) in VersionHash.precedesInUTF16(a, b) }
        for entity in model.entities.sorted(by: { byName($0.name, $1.name) })
        where numbering.number(of: entity.name) != nil {
            for relationship in entity.relationships.sorted(by: { byName($0.name, $1.name) })
            where relationship.isToMany && !relationship.isTransient {
                let key = "\(entity.name).\(relationship.name)"
                guard !done.contains(key), let destination = model.entity(named: relationship.destinationEntityName)
                else { continue }
                let inverse = relationship.inverseName.flatMap { model.relationship(named: $0, in: destination) }
                if let inverse, !inverse.isToMany { continue }
                let inverseDeclarer = inverse.flatMap { found in
                    ([destination] + model.ancestors(of: destination)).first { $0.relationships.contains(found) }
                }
                var pair: [(entity: EntityDescription, relationship: RelationshipDescription)] = [
                    (entity, relationship)
                ]
                if let inverse, let inverseDeclarer,
                    !(inverseDeclarer.name == entity.name && inverse.name == relationship.name)
                {
                    pair.append((inverseDeclarer, inverse))
                    done.insert("\(inverseDeclarer.name).\(inverse.name)")
                }
                done.insert(key)
                // The side that names the table goes last: the lower entity number, then the name
                // that sorts first.
                let rank = { (side: (entity: EntityDescription, relationship: RelationshipDescription)) in
                    numbering.number(of: side.entity.name) ?? 0
                }
                pair.sort {
                    rank($0) != rank($1) ? rank($0) > rank($1) : byName($1.relationship.name, $0.relationship.name)
                }
                tables.append(make(pair, numbering: numbering, takenNames: &takenNames, takenColumns: &takenColumns))
            }
        }
        return tables
    }

    private static func make(
        _ pair: [(entity: EntityDescription, relationship: RelationshipDescription)],
        numbering: EntityNumbering, takenNames: inout Set<String>, takenColumns: inout Set<String>
    ) -> JoinTable {
        let last = pair[pair.count - 1]
        let name = ColumnNaming.unique(
            "Z_\(numbering.number(of: last.entity.name) ?? 0)\(last.relationship.name.uppercased())", in: &takenNames)
        var sides = pair.map { side -> Side in
            let number = numbering.number(of: side.relationship.destinationEntityName) ?? 0
            let column = ColumnNaming.unique("Z_\(number)\(side.relationship.name.uppercased())", in: &takenColumns)
            return Side(
                entity: side.entity.name, relationship: side.relationship.name, column: column, orderColumn: nil)
        }
        for index in sides.indices where pair[index].relationship.isOrdered {
            sides[index].orderColumn = "Z_FOK_" + sides[index].column.dropFirst(2)
        }
        var source: String?
        if pair.count == 1 {
            let entity = pair[0].entity.name
            source = ColumnNaming.unique(
                "Z_\(numbering.number(of: entity) ?? 0)\(entity.uppercased())", in: &takenColumns)
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
