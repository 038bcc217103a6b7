import ObjectModel
import SQLiteStore

/// One change a step makes between two versions, structured for scripts (`plan --json`), with
/// the rows it touches where the plan has the store at hand: what a dropped entity, property or
/// set of links held is said with its rows, so the loss is said loudly.
public struct PlannedChange: Sendable, Encodable {
    /// What kind of change.
    public var kind: InferredMapping.Change.Kind
    /// The entity (destination name, or source name when removed).
    public var entity: String
    /// The property, for a change of one.
    public var property: String?
    /// The change, said for people.
    public var description: String
    /// For data the plan's first step drops: the rows holding it (an entity's rows, the rows
    /// with a value of a property, the objects with links). `nil` when not counted (a later
    /// step, or a change that drops nothing).
    public var rows: Int?
    /// For what a mapping step's destination lacks: what its mapping models do with it instead
    /// (`OrderToOrder reads it, into statusKey`; `PublicationToPublication's policy … decides`).
    /// Nil when no entity mapping reads it: then it is lost.
    public var carriedBy: String?

    /// Whether the destination lacks what the source holds here (an entity, a property, links).
    public var dropsData: Bool { [.entityRemoved, .removed, .linksDropped].contains(kind) }

    /// Whether the step loses it: the destination lacks it and no mapping carries it.
    public var isLoss: Bool { dropsData && carriedBy == nil }

    /// The description, with the rows when counted.
    public var sentence: String {
        guard let rows else { return description }
        switch kind {
        case .entityRemoved: return "\(description) (\(rows) row\(rows == 1 ? "" : "s"))"
        case .linksDropped: return "\(description) (\(rows) object\(rows == 1 ? "" : "s") with links)"
        default: return "\(description) (\(rows) row\(rows == 1 ? "" : "s") with a value)"
        }
    }

    /// Every change of `inference`, entities removed first; with `store` (the plan's first
    /// step, the store at its source version), what each drops counted: a removed entity's rows
    /// from a scan of each table, and for an inferred step a property's values from one count
    /// each. A mapping step's drops are the mapping model's to decide, and are not counted: each
    /// count is a scan of a table at plan time, which a custom-policy plan at 1M rows would pay
    /// for a loss the mapping model may not make.
    static func all(_ inference: InferredMapping, kind: MigrationPlan.Kind, store: (PersistentStore, StoreLayout)?)
        throws -> [PlannedChange]
    {
        let changes = try counted(inference, kind: kind, store: store)
        guard case .mapping(let mappings) = kind else { return changes }
        return carried(changes, by: mappings, inference: inference)
    }

    /// Every change of `inference`, entities removed first, with what each drops counted (see ``all(_:kind:store:)``).
    private static func counted(
        _ inference: InferredMapping, kind: MigrationPlan.Kind, store: (PersistentStore, StoreLayout)?
    ) throws -> [PlannedChange] {
        let entityRows = try store.flatMap { store in
            inference.removedEntities.isEmpty ? nil : try store.0.rowCounts(model: inference.sourceModel)
        }
        let countsValues: Bool
        if case .lightweight = kind { countsValues = true } else { countsValues = false }
        let ordered =
            inference.changes.filter { $0.kind == .entityRemoved }
            + inference.changes.filter { $0.kind != .entityRemoved }
        return ordered.map { change in
            var planned = PlannedChange(
                kind: change.kind, entity: change.entity, property: change.property, description: change.description)
            guard change.dropsData, let store else { return planned }
            if change.kind == .entityRemoved {
                planned.rows = entityRows?[change.entity]
            } else if countsValues, let property = change.property, let origin = inference.entitySources[change.entity]
            {
                // A removed property is named as the source has it; dropped links, by the destination's
                // relationship paired with the source's of the same identifier.
                let from =
                    change.kind == .removed
                    ? property
                    : (inference.sourceModel.entity(named: origin)
                        .flatMap { inference.sourceModel.relationship(named: property, in: $0) }?.name ?? property)
                planned.rows = try? store.0.readObjects(store.1) { reader in
                    try reader.count(of: origin, includingSubentities: false) - reader.countLacking(from, of: origin)
                }
            }
            return planned
        }
    }
}

extension PlannedChange {
    /// `changes` with what `mappings` carry of each marked (``carriedBy``): a source property an
    /// entity mapping's expressions or filter read, a removed entity an entity mapping takes
    /// somewhere, anything of an entity a custom policy migrates (the policy reads what it likes).
    static func carried(
        _ changes: [PlannedChange], by mappings: [MappingModel], inference: InferredMapping
    ) -> [PlannedChange] {
        let entityMappings = mappings.flatMap(\.entityMappings)
        return changes.map { change in
            guard change.dropsData else { return change }
            var carried = change
            let source =
                change.kind == .entityRemoved ? change.entity : inference.entitySources[change.entity] ?? change.entity
            let from = entityMappings.filter { $0.sourceEntity == source }
            if let policy = from.first(where: { $0.policyName != nil }) {
                carried.carriedBy = "\(policy.name)'s policy \(policy.policyName ?? "") decides what becomes of it"
            } else if change.kind == .entityRemoved {
                carried.carriedBy = from.first { $0.destinationEntity != nil }.map {
                    "\($0.name) migrates its rows to \($0.destinationEntity ?? "")"
                }
            } else if let property = change.property {
                let readers = from.compactMap { mapping -> String? in
                    let into = (mapping.attributeMappings + mapping.relationshipMappings).filter {
                        $0.expression.map { $0.sourceKeys.contains(property) || $0.sourceKeys.contains("*") } ?? false
                    }.map(\.name)
                    if !into.isEmpty { return "\(mapping.name) reads it, into \(into.joined(separator: ", "))" }
                    return mapping.filter?.sourceKeys.contains(property) == true
                        ? "\(mapping.name)'s filter reads it" : nil
                }
                carried.carriedBy = readers.isEmpty ? nil : readers.joined(separator: "; ")
            }
            return carried
        }
    }
}
