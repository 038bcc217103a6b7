import Foundation
import ObjectModel
import SQLiteStore

/// What an inferred step must have done, checked on the store before and after it: every
/// object kept under its key, each paired attribute's value (numbers compared as numbers, since
/// a retyped column keeps them), each new attribute's default, each paired relationship's links
/// and each new one's links as its paired inverse held them; new entities empty. The pairing is
/// the step's own inferred mapping (Core Data's rules, tested against real apps elsewhere), so
/// the check proves the step's SQL kept what those rules keep.
struct InferredStepCheck {
    let inference: InferredMapping
    let before: ObjectSnapshot
    let after: ObjectSnapshot

    /// The first difference found, said for people, or `nil` when the step kept everything.
    func firstDifference() -> String? {
        let model = inference.destinationModel
        for entity in model.entities where !entity.isAbstract {
            guard let origin = inference.entitySources[entity.name] else {
                let count = after.objects[entity.name]?.count ?? 0
                if count != 0 { return "\(entity.name) is new but has \(count) rows" }
                continue
            }
            let old = before.objects[origin] ?? [:], new = after.objects[entity.name] ?? [:]
            if Set(old.keys) != Set(new.keys) {
                return "\(entity.name): \(old.count) rows of \(origin) before, \(new.count) after (keys differ)"
            }
            if let difference = attributeDifference(entity, origin: origin, old: old, new: new) { return difference }
            if let difference = linkDifference(entity, origin: origin, old: old) { return difference }
        }
        return nil
    }

    private func attributeDifference(
        _ entity: EntityDescription, origin: String, old: [Int64: StoredObject], new: [Int64: StoredObject]
    ) -> String? {
        let sources = inference.propertySources[entity.name] ?? [:]
        for attribute in inference.destinationModel.allAttributes(of: entity)
        where !attribute.isTransient && !attribute.isDerived {
            let source = sources[attribute.name]
            let fill = ObjectSnapshot.comparable(ObjectWriter.defaultValue(of: attribute) ?? .null)
            // A required attribute with a default takes it where the source had no value (an
            // optional attribute made required: A7), as the step fills it.
            let fillsEmpty = !attribute.isOptional && attribute.defaultValueString != nil
            let differing = old.filter { key, object in
                let expected =
                    source.map { name in
                        let value = object.values[name] ?? .null
                        return fillsEmpty && value.plain == .null ? fill : ObjectSnapshot.comparable(value)
                    } ?? fill
                return new[key].map { ObjectSnapshot.comparable($0.values[attribute.name] ?? .null) } != expected
            }
            if let key = differing.keys.min() {
                return
                    """
                    \(entity.name).\(attribute.name): \(differing.count) rows differ from \
                    \(source.map { "\(origin).\($0)" } ?? "the default") (first: Z_PK \(key))
                    """
            }
        }
        return nil
    }

    private func linkDifference(_ entity: EntityDescription, origin: String, old: [Int64: StoredObject]) -> String? {
        let source = inference.sourceModel, destination = inference.destinationModel
        for relationship in destination.allRelationships(of: entity) where !relationship.isTransient {
            let from = inference.propertySources[entity.name]?[relationship.name]
            // Positions count only where both versions keep them.
            let ordered =
                relationship.isOrdered
                && from.flatMap { name in
                    source.entity(named: origin).flatMap { source.relationship(named: name, in: $0) }
                }?.isOrdered == true
            let now = links(after, entity.name, relationship.name, ordered: ordered)
            // A new relationship whose inverse is paired holds the inverse's links from this side;
            // a to-one keeps the first of several.
            // Links to objects of an entity the step removes go with them (Bridge SDK's
            // `ResourceList.items`, whose members may be `AppConfig`s, gone at `SBBDataModelV1`).
            let gone = removedTargets(of: relationship, from: from.map { (origin, $0) })
            let then =
                (from.map { links(before, origin, $0, ordered: ordered) }
                ?? inverseLinks(of: relationship).filter { old[$0.key] != nil }.mapValues {
                    relationship.isToMany ? $0.sorted() : [$0.min()!]
                }).mapValues { $0.filter { !gone.contains($0) } }.filter { !$0.value.isEmpty }
            if now != then {
                let lost = then.filter { now[$0.key] != $0.value }.count
                return
                    """
                    \(entity.name).\(relationship.name): \(lost) objects' links differ from \
                    \(from.map { "\(origin).\($0)" } ?? "its inverse's")
                    """
            }
        }
        return nil
    }

    private func links(_ snapshot: ObjectSnapshot, _ entity: String, _ name: String, ordered: Bool) -> [Int64: [Int64]]
    {
        (snapshot.links[entity]?[name] ?? [:]).mapValues { ordered ? $0 : $0.sorted() }
    }

    /// The keys of the objects `relationship`'s links may have pointed to that the step removes:
    /// those of a removed entity in the source hierarchy its links point into (`source`, the
    /// relationship it comes from, or its destination's origin). A key that pointed to no object
    /// stays as it was, as the step leaves it.
    private func removedTargets(of relationship: RelationshipDescription, from source: (String, String)?) -> Set<Int64>
    {
        let model = inference.sourceModel
        let pointedTo =
            source.flatMap { entity, name in
                model.entity(named: entity).flatMap { model.relationship(named: name, in: $0) }?.destinationEntityName
            } ?? inference.entitySources[relationship.destinationEntityName]
        guard let target = pointedTo.flatMap(model.entity(named:)) else { return [] }
        let root = model.rootEntity(of: target).name
        let carried = Set(inference.entitySources.values)
        return Set(
            model.entities.filter { model.rootEntity(of: $0).name == root && !carried.contains($0.name) }
                .flatMap { before.objects[$0.name]?.keys.map { $0 } ?? [] })
    }

    /// The links a new relationship has from the start: its paired inverse's, seen from this side.
    private func inverseLinks(of relationship: RelationshipDescription) -> [Int64: [Int64]] {
        let model = inference.destinationModel
        guard let inverseName = relationship.inverseName,
            let target = model.entity(named: relationship.destinationEntityName)
        else { return [:] }
        var result: [Int64: [Int64]] = [:]
        let family = [target] + model.entities.filter { model.ancestors(of: $0).contains { $0.name == target.name } }
        for entity in family {
            guard let origin = inference.entitySources[entity.name],
                let from = inference.propertySources[entity.name]?[inverseName]
            else { continue }
            for (owner, targets) in before.links[origin]?[from] ?? [:] {
                for key in targets { result[key, default: []].append(owner) }
            }
        }
        return result
    }
}
