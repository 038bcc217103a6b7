import Foundation
import ObjectModel
import SQLiteStore

/// Core Data's association table as policies see it: pairs made as instances are created, and
/// the look-ups between a mapping's sources and destinations.
extension MigrationManager {
    /// Sets `attribute` of every instance of `entity` the pass creates to `expression` (a value
    /// expression with `$source`), as it is associated with its source: Core Data's association
    /// hook for its most common use, filling a destination attribute from the source. Written as
    /// an expression rather than a closure, it compiles to SQL with the mapping's own values, so
    /// a set-based mapping stays set-based; otherwise it is evaluated per instance.
    /// - Parameters:
    ///   - entity: A destination entity.
    ///   - attribute: One of its attributes; a later call for it replaces this one.
    ///   - expression: A value expression in Core Data's syntax, with `$source`.
    /// - Throws: A `MigrationError` of kind `.evaluation` when the attribute does not exist or the expression does not parse.
    public func setOnAssociation(_ entity: String, _ attribute: String, to expression: String) throws {
        guard let description = destinationModel.entity(named: entity),
            destinationModel.allAttributes(of: description).contains(where: { $0.name == attribute })
        else {
            throw MigrationError(
                .evaluation, "setOnAssociation: the destination model has no attribute \(entity).\(attribute)",
                fix: "name an attribute of the destination model's \(entity)")
        }
        let parsed: Expression
        do { parsed = try ExpressionParser.expression(expression) } catch {
            throw MigrationError(
                .evaluation, "setOnAssociation \(entity).\(attribute): \(expression): \(error)",
                fix: "correct the value expression")
        }
        associationValues[entity, default: []].removeAll { $0.attribute == attribute }
        associationValues[entity, default: []].append((attribute, parsed))
    }

    /// Records that `destination` was made from `source` by `mapping`.
    /// - Parameters:
    ///   - source: The source instance, or `nil` for an instance made from none.
    ///   - destination: The destination instance made from it.
    ///   - mapping: The entity mapping that made it.
    /// - Throws: A `MigrationError` for an entity mapping the mapping model lacks or a failing association value; a `StoreError`; what `didAssociate` throws.
    public func associate(source: ObjectID?, destination: ObjectID, mapping: EntityMapping) throws {
        let number = try index(of: mapping.name)
        try stores.associations.add(mapping: number, source: source, destination: destination)
        // A pair that ends a fold makes the writer write to its instance (``FoldedToOnes/associated``),
        // which it does after the rows it has queued.
        if !passState.foldedToOnes.isEmpty {
            if passState.foldedToOnes.values.contains(where: \.hasPending) { try passState.queuePendingInsert() }
            for fold in passState.foldedToOnes.values {
                try fold.associated(source: source, destination: destination, mapping: number, writer: stores.writer)
            }
        }
        if !associationValues.isEmpty, let entity = mapping.destinationEntity,
            let assignments = associationValues[entity], !assignments.isEmpty
        {
            let values = try attributeValues(
                AttributeAssignments(assignments, entity: entity, destinationLayout: stores.destinationLayout),
                mapping: mapping,
                source: source, destination: destination)
            try setDestinationValues(destination, values)
        }
        if let didAssociate, didAssociateEntities.map({ mapping.destinationEntity.map($0.contains) ?? false }) ?? true {
            try didAssociate(self, source, destination, mapping)
        }
    }

    /// The destination instances the entity mapping `name` made from `sourceInstances`.
    ///
    /// - Parameters:
    ///   - name: An entity mapping of the running mapping model.
    ///   - sourceInstances: Source objects that mapping visited.
    /// - Returns: The destination objects it associated with them, in the order of the sources.
    /// - Throws: A `MigrationError` of kind `.evaluation` when the mapping model has no such entity mapping.
    public func destinationInstances(forEntityMappingNamed name: String, sourceInstances: [ObjectID]) throws
        -> [ObjectID]
    {
        let mapping = try index(of: name)
        return try sourceInstances.flatMap { try stores.associations.destinations(mapping: mapping, source: $0) }
    }

    /// The source instances the entity mapping `name` made `destinationInstances` from.
    ///
    /// - Parameters:
    ///   - name: An entity mapping of the running mapping model.
    ///   - destinationInstances: Destination objects that mapping made.
    /// - Returns: The source objects they were made from, in the order of the destinations.
    /// - Throws: A `MigrationError` of kind `.evaluation` when the mapping model has no such entity mapping.
    public func sourceInstances(forEntityMappingNamed name: String, destinationInstances: [ObjectID]) throws
        -> [ObjectID]
    {
        let mapping = try index(of: name)
        return try destinationInstances.flatMap { try stores.associations.sources(mapping: mapping, destination: $0) }
    }

    func index(of mappingName: String) throws -> Int {
        // A policy associates once per row, always with the mapping it is visiting.
        if let last = lastMappingIndex, last.name == mappingName { return last.index }
        guard let index = mappingModel.entityMappings.firstIndex(where: { $0.name == mappingName }) else {
            throw MigrationError(
                .evaluation, "mapping model \(mappingModel.name) has no entity mapping named \(mappingName)",
                fix: "use one of: \(mappingModel.entityMappings.map(\.name).joined(separator: ", "))")
        }
        lastMappingIndex = (mappingName, index)
        return index
    }
}
