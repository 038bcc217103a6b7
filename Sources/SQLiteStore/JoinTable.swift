import ObjectModel

/// A many-to-many join table (`Z_<n><REL>`): one row per link, one column per side holding that
/// side's destination `Z_PK`, and a `Z_FOK_` position column for each ordered side.
///
/// Naming, from real stores: the table is named after the relationship whose name sorts last,
/// prefixed with its entity's number; each column after its relationship, prefixed with the
/// number of that relationship's destination.
public struct JoinTable: Hashable, Sendable {
    /// One relationship of the pair.
    public struct Side: Hashable, Sendable {
        /// The entity declaring the relationship.
        public var entity: String
        /// The relationship's name.
        public var relationship: String
        /// The column holding this relationship's destination keys.
        public var column: String
        /// The position column when the relationship is ordered.
        public var orderColumn: String?
    }

    /// The table's name.
    public var name: String
    /// The two relationships (one, for a to-many without inverse), sorted by name.
    public var sides: [Side]
    /// For a to-many without inverse: the column holding the source keys.
    public var sourceColumn: String?

    /// All columns, in table order.
    public var columns: [String] {
        sides.map(\.column) + (sourceColumn.map { [$0] } ?? []) + sides.compactMap(\.orderColumn)
    }

    /// The join tables `model` needs.
    static func all(in model: ManagedObjectModel, numbering: EntityNumbering) -> [JoinTable] {
        var tables: [JoinTable] = []
        var done: Set<String> = []
        var takenNames: Set<String> = []
        for entry in numbering.entries {
            guard let entity = model.entity(named: entry.name) else { continue }
            for relationship in entity.relationships where relationship.isToMany && !relationship.isTransient {
                let key = "\(entity.name).\(relationship.name)"
                guard !done.contains(key), let destination = model.entity(named: relationship.destinationEntityName) else { continue }
                let inverse = relationship.inverseName.flatMap { model.relationship(named: $0, in: destination) }
                if let inverse, !inverse.isToMany { continue }
                let inverseDeclarer = inverse.flatMap { found in
                    ([destination] + model.ancestors(of: destination)).first { $0.relationships.contains(found) }
                }
                var pair: [(entity: EntityDescription, relationship: RelationshipDescription)] = [(entity, relationship)]
                if let inverse, let inverseDeclarer, !(inverseDeclarer.name == entity.name && inverse.name == relationship.name) {
                    pair.append((inverseDeclarer, inverse))
                    done.insert("\(inverseDeclarer.name).\(inverse.name)")
                }
                done.insert(key)
                pair.sort { VersionHash.precedesInUTF16($0.relationship.name, $1.relationship.name) }
                tables.append(make(pair, numbering: numbering, takenNames: &takenNames))
            }
        }
        return tables
    }

    private static func make(_ pair: [(entity: EntityDescription, relationship: RelationshipDescription)],
                             numbering: EntityNumbering, takenNames: inout Set<String>) -> JoinTable {
        let last = pair[pair.count - 1]
        let name = ColumnNaming.unique("Z_\(numbering.number(of: last.entity.name) ?? 0)\(last.relationship.name.uppercased())", in: &takenNames)
        var taken: Set<String> = []
        var sides = pair.map { side -> Side in
            let number = numbering.number(of: side.relationship.destinationEntityName) ?? 0
            let column = ColumnNaming.unique("Z_\(number)\(side.relationship.name.uppercased())", in: &taken)
            return Side(entity: side.entity.name, relationship: side.relationship.name, column: column, orderColumn: nil)
        }
        for index in sides.indices where pair[index].relationship.isOrdered {
            sides[index].orderColumn = "Z_FOK_" + sides[index].column.dropFirst(2)
        }
        var source: String?
        if pair.count == 1 {
            let entity = pair[0].entity.name
            source = ColumnNaming.unique("Z_\(numbering.number(of: entity) ?? 0)\(entity.uppercased())", in: &taken)
        }
        return JoinTable(name: name, sides: sides, sourceColumn: source)
    }
}
