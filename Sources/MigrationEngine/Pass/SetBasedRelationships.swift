import ObjectModel
import SQLiteStore

/// Stage 2 as set-based SQL for the relationship mappings Core Data's compiler generates,
/// `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "M", $source.r)`:
/// a to-one becomes one `UPDATE … FROM` through the association table; a to-many whose inverse
/// to-one is mapped that way needs nothing (the inverse sets the same key) except, when ordered,
/// one `UPDATE` numbering the members in the source's order; a many-to-many mapped that way on
/// both sides is one `INSERT … SELECT` into the join table. Anything else stays row by row.
///
/// Each statement writes in key order (`ORDER BY` the rows' keys): a million updates or
/// inserts in key order touch each page once, in random order they evict and rewrite pages all
/// along, far slower (`chrysalis-bench --scenario relationships` recreates a to-one, an ordered
/// to-many and a many-to-many so).
struct SetBasedRelationships {
    /// The pass whose relationships it recreates.
    let pass: MappingPass
    var manager: MigrationManager { pass.manager }

    /// `M` and `r` of a compiler-style relationship expression.
    static func standardForm(_ expression: Expression?) -> (mapping: String, relationship: String)? {
        guard
            case .function(
                .variable("manager"), "destinationInstancesForEntityMappingNamed:sourceInstances:", let arguments)? =
                expression,
            arguments.count == 2, case .constant(.string(let mapping)) = arguments[0],
            case .keyPath(.variable("source"), let path) = arguments[1], path.count == 1
        else { return nil }
        return (mapping, path[0])
    }

    /// The relationship mappings of `mapping` this can do; the caller does the rest row by row.
    func handled(_ mapping: EntityMapping, policy: EntityMigrationPolicy) -> Set<String> {
        guard policy.usesDefaultRelationships, let destinationName = mapping.destinationEntity,
            let sourceName = mapping.sourceEntity,
            let destination = manager.destinationModel.entity(named: destinationName),
            let source = manager.sourceModel.entity(named: sourceName)
        else { return [] }
        var names: Set<String> = []
        for property in mapping.relationshipMappings {
            guard let form = Self.standardForm(property.expression),
                manager.mappingModel.entityMapping(named: form.mapping) != nil,
                let relationship = manager.destinationModel.relationship(named: property.name, in: destination),
                let sourceRelationship = manager.sourceModel.relationship(named: form.relationship, in: source)
            else { continue }
            switch (
                pass.stores.destinationLayout.storage(entity: destinationName, relationship: property.name),
                pass.stores.sourceLayout.storage(entity: sourceName, relationship: form.relationship)
            ) {
            case (.foreignKey?, .foreignKey?):
                names.insert(property.name)
            case (.inverseForeignKey(_, _, _, nil)?, _)
            where inverseIsSetBased(relationship, sourceRelationship: sourceRelationship, mapping: form.mapping):
                names.insert(property.name)
            case (.inverseForeignKey(_, _, _, _?)?, .inverseForeignKey(_, _, _, _?)?)
            where inverseIsSetBased(relationship, sourceRelationship: sourceRelationship, mapping: form.mapping):
                names.insert(property.name)
            case let (.joinTable(join, _, _, nil)?, .joinTable(sourceJoin, _, _, nil)?)
            where join.columns.count == 2 && sourceJoin.columns.count == 2
                && inverseIsStandard(
                    relationship, sourceRelationship: sourceRelationship, mapping: form.mapping, from: mapping.name):
                names.insert(property.name)
            case let (.joinTable(join, _, _, nil)?, .inverseForeignKey?)
            where join.columns.count == 2 && targetFits(relationship, mapping: form.mapping):
                // A to-many kept in its members' rows becomes a many-to-many (objc.io Books: User.books).
                names.insert(property.name)
            default: continue
            }
        }
        return names
    }

    /// Whether the to-one on the other side will be set by `run` for the same links.
    private func inverseIsSetBased(
        _ relationship: RelationshipDescription, sourceRelationship: RelationshipDescription, mapping: String
    ) -> Bool {
        guard let inverseName = relationship.inverseName, let sourceInverse = sourceRelationship.inverseName,
            let other = manager.mappingModel.entityMapping(named: mapping), manager.usesDefaultRelationships(other),
            let property = other.relationshipMappings.first(where: { $0.name == inverseName }),
            let form = Self.standardForm(property.expression), form.relationship == sourceInverse,
            let otherSource = other.sourceEntity, let otherDestination = other.destinationEntity,
            case .foreignKey? = pass.stores.destinationLayout.storage(
                entity: otherDestination, relationship: inverseName),
            case .foreignKey? = pass.stores.sourceLayout.storage(entity: otherSource, relationship: sourceInverse)
        else { return false }
        return manager.mappingModel.entityMappings.first { $0.name == form.mapping }?.destinationEntity != nil
    }

    /// Whether the other side of a many-to-many is mapped in standard form back through `from`,
    /// by a mapping that uses default relationships, so one side's `INSERT` makes every link.
    private func inverseIsStandard(
        _ relationship: RelationshipDescription, sourceRelationship: RelationshipDescription, mapping: String,
        from: String
    ) -> Bool {
        guard let inverseName = relationship.inverseName, let sourceInverse = sourceRelationship.inverseName,
            let other = manager.mappingModel.entityMapping(named: mapping), manager.usesDefaultRelationships(other),
            let property = other.relationshipMappings.first(where: { $0.name == inverseName }),
            let form = Self.standardForm(property.expression)
        else { return false }
        return form.relationship == sourceInverse && form.mapping == from
    }

    /// Sets the relationships of `mapping` that `handled` accepted, for every instance it created.
    func run(_ mapping: EntityMapping, index: Int, names: Set<String>) throws {
        let statements = try statements(mapping, index: index, names: names)
        // Each ranks, sorts or joins by key: SQLite sorts best, and in less memory, in a small cache.
        try pass.stores.connection.sorting { try pass.stores.connection.execute(statements) }
    }

    /// The statements that set the relationships of `mapping` (number `index` of the pass) that
    /// `handled` accepted: one per relationship, except what stage 1 already wrote (folded
    /// to-ones) and to-manys their inverse to-one sets.
    func statements(_ mapping: EntityMapping, index: Int, names: Set<String>) throws -> [SQLStatement] {
        guard let destinationName = mapping.destinationEntity, let sourceName = mapping.sourceEntity,
            manager.sourceModel.entity(named: sourceName) != nil,
            let sourceTable = pass.stores.sourceLayout.table(for: sourceName),
            pass.stores.destinationLayout.table(for: destinationName) != nil
        else { return [] }
        let associations = pass.stores.associations
        let folded =
            manager.useSetBasedSQL
            ? InstanceInsertSQL.compile(manager: manager, mapping: mapping, index: index).foldedRelationships : []
        let foldedRowByRow =
            try pass.state.foldedToOnes[index].map { $0.done(associations: try associations.count(mapping: index)) }
            ?? []
        var statements: [SQLStatement] = []
        for property in mapping.relationshipMappings
        where names.contains(property.name) && !folded.contains(property.name)
            && !foldedRowByRow.contains(property.name)
        {
            guard let form = Self.standardForm(property.expression) else { continue }
            let link = Link(
                owner: index, target: try manager.index(of: form.mapping), sourceTable: sourceTable.name,
                destinationEntity: destinationName,
                sourceEntity: sourceName, property: property.name, sourceRelationship: form.relationship)
            statements += linkStatements(link)
        }
        return statements
    }

    /// The statements that set one relationship, by where each side keeps it.
    private func linkStatements(_ link: Link) -> [SQLStatement] {
        switch (
            pass.stores.destinationLayout.storage(entity: link.destinationEntity, relationship: link.property),
            pass.stores.sourceLayout.storage(entity: link.sourceEntity, relationship: link.sourceRelationship)
        ) {
        case let (
            .inverseForeignKey(table, _, _, order?)?, .inverseForeignKey(sourceMembers, sourceKey, _, sourceOrder?)?
        ):
            return [
                orderedMembers(
                    link, table: table, order: order, sourceMembers: sourceMembers, sourceKey: sourceKey,
                    sourceOrder: sourceOrder)
            ]
        case let (
            .joinTable(join, column, otherColumn, nil)?, .joinTable(sourceJoin, sourceColumn, sourceOtherColumn, nil)?
        ):
            // Both sides are mapped this way; the join table's first side inserts every link once.
            guard join.sides.first?.relationship == link.property,
                join.sides.first?.entity == relationshipOwner(link.property, link.destinationEntity)
            else { return [] }
            return [
                joinLinks(
                    link, join: join, columns: (column, otherColumn), sourceJoin: sourceJoin,
                    sourceColumns: (sourceColumn, sourceOtherColumn))
            ]
        case let (.joinTable(join, column, otherColumn, nil)?, .inverseForeignKey(sourceMembers, sourceKey, _, _)?):
            return membersToLinks(
                link, join: join, columns: (column, otherColumn), sourceMembers: sourceMembers, sourceKey: sourceKey)
        case let (.foreignKey(_, column, entityColumn)?, .foreignKey(_, sourceColumn, _)?):
            return toOneKeys(link, column: column, entityColumn: entityColumn, sourceColumn: sourceColumn).map { [$0] }
                ?? []
        default: return []
        }
    }

    /// One relationship mapping in standard form: the owner mapping's and the target mapping's
    /// numbers, and where it is.
    private struct Link {
        let owner: Int, target: Int
        let sourceTable: String
        let destinationEntity: String, sourceEntity: String
        let property: String, sourceRelationship: String
    }

    /// An ordered to-many: the inverse to-one sets the keys; the positions follow the source's
    /// order (as the reader lists it).
    private func orderedMembers(
        _ link: Link, table: String, order: String, sourceMembers: String, sourceKey: String, sourceOrder: String
    ) -> SQLStatement {
        let q = SQLIdentifier.quote, associations = pass.stores.associations
        if let member = associations.identityLookup(link.target, key: "s.Z_PK", into: sourceMembers),
            let owner = associations.identityLookup(link.owner, key: "s.\(q(sourceKey))", into: link.sourceTable)
        {
            // Both kept their source keys (or shifted them): rank the source rows themselves.
            // NOT INDEXED: through the key's index SQLite reads every member row in key order,
            // one random seek each, slower than a scan and a sort (`chrysalis-bench --scenario
            // relationships --stages` times stage 2).
            return SQLStatement(
                """
                UPDATE main.\(q(table)) SET \(q(order)) = ranked.position
                FROM (SELECT \(member.value) AS pk, 1024 * row_number() OVER (PARTITION BY s.\(q(sourceKey)) ORDER BY s.\(q(sourceOrder)), s.Z_PK) AS position
                      FROM src.\(q(sourceMembers)) s NOT INDEXED WHERE \(member.paired) AND \(owner.paired) ORDER BY pk) AS ranked
                WHERE main.\(q(table)).Z_PK = ranked.pk
                """)
        }
        return SQLStatement(
            """
            UPDATE main.\(q(table)) SET \(q(order)) = ranked.position
            FROM (SELECT member.destination_pk AS pk,
                         1024 * row_number() OVER (PARTITION BY owner.destination_pk ORDER BY s.\(q(sourceOrder)), s.Z_PK) AS position
                  FROM src.\(q(sourceMembers)) s
                  JOIN \(associations.relation(link.target)) member ON member.mapping = ? AND member.source_pk = s.Z_PK
                  JOIN \(associations.relation(link.owner)) owner ON owner.mapping = ? AND owner.source_pk = s.\(q(sourceKey)) ORDER BY pk) AS ranked
            WHERE main.\(q(table)).Z_PK = ranked.pk
            """, [SQLValue(link.target), SQLValue(link.owner)])
    }

    /// A many-to-many mapped this way on both sides: every link inserted once into the join
    /// table. CROSS JOIN fixes the order (links outside, keyed look-ups inside): without
    /// statistics SQLite may otherwise pair every association with every other.
    private func joinLinks(
        _ link: Link, join: JoinTable, columns: (String, String), sourceJoin: JoinTable, sourceColumns: (String, String)
    ) -> SQLStatement {
        let q = SQLIdentifier.quote, associations = pass.stores.associations
        let (column, otherColumn) = columns, (sourceColumn, sourceOtherColumn) = sourceColumns
        // The join table's primary key is its columns in table order.
        let keyOrder = join.columns.first == column ? "1, 2" : "2, 1"
        let source = manager.sourceModel.entity(named: link.sourceEntity)
        if let owner = associations.identityLookup(link.owner, key: "j.\(q(sourceColumn))", into: link.sourceTable),
            let other = source.flatMap({ sourceTarget(of: link.sourceRelationship, in: $0) }).flatMap({
                associations.identityLookup(link.target, key: "j.\(q(sourceOtherColumn))", into: $0)
            })
        {
            // Both sides kept their source keys (or shifted them): the source's links are the destination's.
            return SQLStatement(
                """
                INSERT OR IGNORE INTO main.\(q(join.name)) (\(q(column)), \(q(otherColumn)))
                SELECT \(owner.value), \(other.value) FROM src.\(q(sourceJoin.name)) j WHERE \(owner.paired) AND \(other.paired) ORDER BY \(keyOrder)
                """)
        }
        return SQLStatement(
            """
            INSERT OR IGNORE INTO main.\(q(join.name)) (\(q(column)), \(q(otherColumn)))
            SELECT a1.destination_pk, a2.destination_pk FROM src.\(q(sourceJoin.name)) j
            CROSS JOIN \(associations.relation(link.owner)) a1 ON a1.mapping = ? AND a1.source_pk = j.\(q(sourceColumn))
            CROSS JOIN \(associations.relation(link.target)) a2 ON a2.mapping = ? AND a2.source_pk = j.\(q(sourceOtherColumn)) ORDER BY \(keyOrder)
            """, [SQLValue(link.owner), SQLValue(link.target)])
    }

    /// Whether every destination the target mapping makes is one `relationship` may point to
    /// (its destination entity or a subentity), as the row-by-row write checks one by one.
    private func targetFits(_ relationship: RelationshipDescription, mapping: String) -> Bool {
        guard let made = manager.mappingModel.entityMapping(named: mapping)?.destinationEntity else { return false }
        var current = manager.destinationModel.entity(named: made)
        while let entity = current {
            if entity.name == relationship.destinationEntityName { return true }
            current = entity.parentName.flatMap { manager.destinationModel.entity(named: $0) }
        }
        return false
    }

    /// A many-to-many whose source is a to-many kept in its members' rows (the inverse to-one's
    /// foreign key): each owner's links replaced, as the row-by-row write replaces them, by one
    /// link per source member to each destination the target mapping made of it.
    private func membersToLinks(
        _ link: Link, join: JoinTable, columns: (String, String), sourceMembers: String, sourceKey: String
    ) -> [SQLStatement] {
        let q = SQLIdentifier.quote, associations = pass.stores.associations
        let (column, otherColumn) = columns
        let keyOrder = join.columns.first == column ? "1, 2" : "2, 1"
        let delete = SQLStatement(
            """
            DELETE FROM main.\(q(join.name)) WHERE \(q(column)) IN (SELECT destination_pk FROM \(associations.relation(link.owner)) WHERE mapping = ?)
            """, [SQLValue(link.owner)])
        if let owner = associations.identityLookup(link.owner, key: "s.\(q(sourceKey))", into: link.sourceTable),
            let member = associations.identityLookup(link.target, key: "s.Z_PK", into: sourceMembers)
        {
            // Both kept their source keys (or shifted them): each member row is its link, no look-up.
            return [
                delete,
                SQLStatement(
                    """
                    INSERT OR IGNORE INTO main.\(q(join.name)) (\(q(column)), \(q(otherColumn)))
                    SELECT \(owner.value), \(member.value) FROM src.\(q(sourceMembers)) s WHERE \(owner.paired) AND \(member.paired) ORDER BY \(keyOrder)
                    """),
            ]
        }
        return [
            delete,
            SQLStatement(
                """
                INSERT OR IGNORE INTO main.\(q(join.name)) (\(q(column)), \(q(otherColumn)))
                SELECT a1.destination_pk, a2.destination_pk FROM src.\(q(sourceMembers)) s
                CROSS JOIN \(associations.relation(link.owner)) a1 ON a1.mapping = ? AND a1.source_pk = s.\(q(sourceKey))
                CROSS JOIN \(associations.relation(link.target)) a2 ON a2.mapping = ? AND a2.source_pk = s.Z_PK ORDER BY \(keyOrder)
                """, [SQLValue(link.owner), SQLValue(link.target)]),
        ]
    }

    /// A to-one: one `UPDATE … FROM` through the associations, or, when the target kept its
    /// source keys, the source's foreign key itself.
    private func toOneKeys(_ link: Link, column: String, entityColumn: String?, sourceColumn: String) -> SQLStatement? {
        let q = SQLIdentifier.quote, associations = pass.stores.associations
        guard let source = manager.sourceModel.entity(named: link.sourceEntity),
            let targetTable = sourceTarget(of: link.sourceRelationship, in: source),
            let destinationTable = pass.stores.destinationLayout.table(for: link.destinationEntity)
        else { return nil }
        let owner =
            "FROM \(associations.relation(link.owner)) a1 JOIN src.\(q(link.sourceTable)) s ON s.Z_PK = a1.source_pk"
        let update = "UPDATE main.\(q(destinationTable.name)) SET"
        let matching = "a1.mapping = ? AND a1.destination_pk = main.\(q(destinationTable.name)).Z_PK"
        if let identity = associations.identityLookup(link.target, key: "s.\(q(sourceColumn))", into: targetTable) {
            // The target kept its source keys: the source's foreign key is the destination's.
            let sets =
                ["\(q(column)) = \(identity.key)"] + (entityColumn.map { ["\(q($0)) = \(identity.entity)"] } ?? [])
            return SQLStatement(
                "\(update) \(sets.joined(separator: ", ")) \(owner) WHERE \(matching)", [SQLValue(link.owner)])
        }
        let sets =
            ["\(q(column)) = a2.destination_pk"] + (entityColumn.map { ["\(q($0)) = a2.destination_entity"] } ?? [])
        return SQLStatement(
            """
            \(update) \(sets.joined(separator: ", ")) \(owner)
            JOIN \(associations.relation(link.target)) a2 ON a2.mapping = ? AND a2.source_pk = s.\(q(sourceColumn))
            WHERE \(matching)
            """, [SQLValue(link.target), SQLValue(link.owner)])
    }

    /// The source table that `relationship` of `entity` points into (what an identity look-up
    /// into the target mapping's keys must be over).
    static func sourceTarget(_ manager: MigrationManager, of relationship: String, in entity: EntityDescription)
        -> String?
    {
        manager.sourceModel.relationship(named: relationship, in: entity).flatMap {
            manager.stores.sourceLayout.table(for: $0.destinationEntityName)?.name
        }
    }

    private func sourceTarget(of relationship: String, in entity: EntityDescription) -> String? {
        Self.sourceTarget(manager, of: relationship, in: entity)
    }

    /// The entity that declares relationship `name` as seen from `entity` (itself or an ancestor).
    private func relationshipOwner(_ name: String, _ entity: String) -> String? {
        var current = manager.destinationModel.entity(named: entity)
        while let candidate = current {
            if candidate.relationships.contains(where: { $0.name == name }) { return candidate.name }
            current = candidate.parentName.flatMap { manager.destinationModel.entity(named: $0) }
        }
        return nil
    }
}
