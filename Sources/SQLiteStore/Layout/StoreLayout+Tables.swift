import ObjectModel

/// How ``StoreLayout`` lays out a root entity's table as Core Data does: its columns in Core
/// Data's order, each to-one's key (and entity) columns, and an ordered relationship's column.
extension StoreLayout {
    /// The columns of one hierarchy, in Core Data's order: by storage class, then entity (root
    /// first), attributes before relationships, then name.
    static func table(for root: EntityDescription, model: ManagedObjectModel, numbering: EntityNumbering)
        -> Table
    {
        let hierarchy = numbering.numbers(inHierarchyOf: numbering.number(of: root.name) ?? 0)
            .compactMap { numbering.name(of: $0) }.compactMap { model.entity(named: $0) }
        var candidates: [ColumnCandidate] = []
        for (position, entity) in hierarchy.enumerated() {
            for attribute in entity.attributes where !attribute.isTransient {
                guard let type = ColumnNaming.sqlType(of: attribute.attributeType) else { continue }
                candidates.append(
                    (
                        [ColumnNaming.rank(of: attribute.attributeType), position, 0, 0], attribute.name,
                        Column(
                            name: ColumnNaming.column(for: attribute.name), sqlType: type,
                            role: .attribute(attribute.attributeType), entity: entity.name, property: attribute.name)
                    ))
            }
            for relationship in entity.relationships where !relationship.isTransient && !relationship.isToMany {
                candidates += toOneColumns(
                    relationship, of: entity, position: position, model: model, numbering: numbering)
            }
        }
        // The key's last part orders a to-one's own columns: its entity column follows its key
        // column, before the next to-one's (Wire's `ZMESSAGECONFIRMATION`: `ZMESSAGE, Z11_MESSAGE, ZUSER`).
        candidates.sort {
            let (a, b) = ($0.key.dropLast(), $1.key.dropLast())
            if a != b { return a.lexicographicallyPrecedes(b) }
            if $0.name != $1.name { return VersionHash.precedesInUTF16($0.name, $1.name) }
            return $0.key.last ?? 0 < $1.key.last ?? 0
        }
        var taken: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]
        let columns = candidates.map { candidate -> Column in
            var column = candidate.column
            column.name = ColumnNaming.unique(column.name, in: &taken)
            return column
        }
        return Table(name: ColumnNaming.table(forRoot: root.name), rootEntity: root.name, columns: columns)
    }

    /// A column with the key Core Data orders a table's columns by, and its property's name.
    private typealias ColumnCandidate = (key: [Int], name: String, column: Column)

    /// The columns a to-one of `entity` (the hierarchy's `position`th) takes: its key; the
    /// destination's entity number when the destination has subentities; the position in an
    /// ordered to-many that points back.
    private static func toOneColumns(
        _ relationship: RelationshipDescription, of entity: EntityDescription, position: Int, model: ManagedObjectModel,
        numbering: EntityNumbering
    ) -> [ColumnCandidate] {
        let column = { (name: String, role: ColumnRole) in
            Column(name: name, sqlType: "INTEGER", role: role, entity: entity.name, property: relationship.name)
        }
        var candidates: [ColumnCandidate] = [
            ([0, position, 1, 0], relationship.name, column(ColumnNaming.column(for: relationship.name), .foreignKey))
        ]
        let destination = model.entity(named: relationship.destinationEntityName)
        if let destination, !model.subentities(of: destination).isEmpty,
            let number = numbering.number(of: destination.name)
        {
            candidates.append(
                (
                    [0, position, 1, 1], relationship.name,
                    column("Z\(number)_\(relationship.name.uppercased())", .foreignEntity)
                ))
        }
        return candidates
    }

    /// Adds to each table the position columns of the ordered to-manys that point into it
    /// (`Z_FOK_<TO-ONE>`, beside the to-one's key), after the table's integer columns and in the
    /// order Core Data meets the to-manys (``PropertyWalk``): Wire's 2.54 `ZMESSAGE` has
    /// `…, ZPARENTMESSAGE INTEGER, Z_FOK_VISIBLEINCONVERSATION INTEGER, Z_FOK_HIDDENINCONVERSATION
    /// INTEGER, ZDESTRUCTIONDATE TIMESTAMP, …`, the last of them a subentity's key.
    static func placeOrderColumns(
        in tables: inout [Table], model: ManagedObjectModel, walks: [String: PropertyWalk.Entity]
    ) {
        var placed: Set<String> = []
        for entity in model.entities.sorted(by: { EntityNumbering.precedes($0.name, $1.name) }) {
            guard let walk = walks[entity.name] else { continue }
            for key in walk.keys {
                guard let (_, relationship) = walk.relationships[key], relationship.isToMany, relationship.isOrdered,
                    let destination = model.entity(named: relationship.destinationEntityName),
                    let inverseName = relationship.inverseName,
                    let (declarer, inverse) = walks[destination.name]?.relationships[inverseName], !inverse.isToMany,
                    placed.insert("\(declarer.name).\(inverse.name)").inserted,
                    let index = tables.firstIndex(where: { $0.rootEntity == model.rootEntity(of: declarer).name })
                else { continue }
                var taken = Set(tables[index].columns.map(\.name) + ["Z_PK", "Z_ENT", "Z_OPT"])
                let column = Column(
                    name: ColumnNaming.unique("Z_FOK_\(inverse.name.uppercased())", in: &taken), sqlType: "INTEGER",
                    role: .orderKey, entity: declarer.name, property: inverse.name)
                let after = tables[index].columns.lastIndex { $0.sqlType == "INTEGER" }.map { $0 + 1 } ?? 0
                tables[index].columns.insert(column, at: after)
            }
        }
    }
}
