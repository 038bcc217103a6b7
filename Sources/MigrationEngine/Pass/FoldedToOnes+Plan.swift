import SQLiteStore

extension FoldedToOnes {
    /// The to-ones of the row-by-row `mapping` (number `index`) that can be folded, or nil.
    static func plan(_ pass: MappingPass, mapping: EntityMapping, index: Int, policy: EntityMigrationPolicy)
        -> FoldedToOnes?
    {
        let manager = pass.manager
        guard manager.useSetBasedSQL, policy.usesDefaultRelationships, let entity = mapping.destinationEntity,
            let entityNumber = manager.stores.destinationLayout.numbering.number(of: entity),
            let sourceName = mapping.sourceEntity, let source = manager.sourceModel.entity(named: sourceName)
        else { return nil }
        let handled = SetBasedRelationships(pass: pass).handled(mapping, policy: policy)
        var folds: [Fold] = []
        for property in mapping.relationshipMappings where handled.contains(property.name) {
            guard let form = SetBasedRelationships.standardForm(property.expression),
                case .foreignKey? = manager.stores.destinationLayout.storage(
                    entity: entity, relationship: property.name),
                case .foreignKey? = manager.stores.sourceLayout.storage(
                    entity: sourceName, relationship: form.relationship),
                let target = try? manager.index(of: form.mapping), target < index,
                let identity = manager.stores.associations.identity(of: target),
                identity.sourceTable == SetBasedRelationships.sourceTarget(manager, of: form.relationship, in: source)
            else { continue }
            folds.append(
                Fold(
                    relationship: property.name, sourceRelationship: form.relationship, targetMapping: target,
                    target: identity))
        }
        return folds.isEmpty
            ? nil : FoldedToOnes(mapping: index, entity: entity, entityNumber: entityNumber, folds: folds)
    }
}
