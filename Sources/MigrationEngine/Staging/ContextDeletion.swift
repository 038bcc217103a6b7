import ObjectModel
import SQLiteStore

/// A context's delete, by each relationship's delete rule, as Core Data applies them when it
/// saves (`NSRelationshipDescription.deleteRule`): deny refuses while the relationship has
/// destinations, cascade deletes them too, nullify unlinks them (their inverse no longer points
/// at the deleted object), no action leaves their side as it is.
struct ContextDeletion {
    let context: MigrationContext

    func delete(_ id: ObjectID) throws {
        var seen: Set<ObjectID> = []
        try refuseDenied(id, seen: &seen)
        seen = []
        try remove(id, seen: &seen)
    }

    /// Every object the delete would reach by cascading, checked for a deny rule with
    /// destinations before anything is deleted.
    private func refuseDenied(_ id: ObjectID, seen: inout Set<ObjectID>) throws {
        guard seen.insert(id).inserted else { return }
        for relationship in relationships(of: id) {
            let destinations = try context.reader.destinations(of: id, relationship.name)
            guard !destinations.isEmpty else { continue }
            switch relationship.deleteRule {
            case .deny:
                let entity = context.layout.numbering.name(of: id.entityNumber) ?? "object"
                throw MigrationError(
                    .validation,
                    """
                    \(entity) object \(id) cannot be deleted: its relationship \(relationship.name) has the delete \
                    rule Deny and still has \(destinations.count) destination\(destinations.count == 1 ? "" : "s")
                    """,
                    fix:
                        """
                        empty \(entity).\(relationship.name) first (move or delete its destinations), as Core Data \
                        requires
                        """
                )
            case .cascade:
                for destination in destinations { try refuseDenied(destination, seen: &seen) }
            case .nullify, .noAction:
                break
            }
        }
    }

    private func remove(_ id: ObjectID, seen: inout Set<ObjectID>) throws {
        guard seen.insert(id).inserted else { return }
        var cascaded: [ObjectID] = []
        for relationship in relationships(of: id) {
            let destinations = try context.reader.destinations(of: id, relationship.name)
            guard !destinations.isEmpty else { continue }
            if relationship.deleteRule == .cascade { cascaded += destinations }
            if relationship.deleteRule != .noAction {
                // Unlinked from both sides: the store keeps one record of the link.
                try context.writer.relate(id, relationship.name, to: [])
                for destination in destinations {
                    try clearInverseToOne(of: relationship, at: destination, pointingAt: id)
                    try context.didChange(destination)
                }
            }
        }
        try context.writer.delete(id)
        try context.didDelete(id)
        for destination in cascaded { try remove(destination, seen: &seen) }
    }

    /// A one-to-one keeps a key on both sides: the destination's is cleared too.
    private func clearInverseToOne(
        of relationship: RelationshipDescription, at destination: ObjectID, pointingAt id: ObjectID
    ) throws {
        guard let inverse = relationship.inverseName,
            let entity = context.layout.numbering.name(of: destination.entityNumber),
            case .relationship(let other, _)? = context.layout.property(inverse, of: entity), !other.isToMany,
            try context.reader.destinations(of: destination, inverse) == [id]
        else { return }
        try context.writer.relate(destination, inverse, to: [])
    }

    private func relationships(of id: ObjectID) -> [RelationshipDescription] {
        guard let name = context.layout.numbering.name(of: id.entityNumber),
            let entity = context.model.entity(named: name)
        else { return [] }
        return context.model.allRelationships(of: entity).filter { !$0.isTransient }
    }
}
