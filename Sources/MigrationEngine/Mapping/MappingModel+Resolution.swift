import ObjectModel
import SQLiteStore

/// Checks a mapping model against its source and destination models and fills in what Core
/// Data's mapping compiler would: `$source.<name>` for attributes the source has, and the
/// `destinationInstancesForEntityMappingNamed:` function for relationships. Every key path an
/// expression or filter reads from the source is checked here, when the plan is made.
extension MappingModel {
    /// Selectors `FUNCTION(…)` may call (``Expression/allowedSelectors``): anything else is
    /// refused, so a mapping file cannot run arbitrary code.
    public static var allowedSelectors: Set<String> { Expression.allowedSelectors }

    /// The mapping with every default filled in, or the first problem found.
    ///
    /// - Parameters:
    ///   - source: The model of the mapping's source version.
    ///   - destination: The model of its destination version.
    /// - Returns: The mapping, with Core Data's default expressions filled in.
    /// - Throws: A `MappingError` at the first entity mapping or property that does not fit the
    ///   models (an unknown entity or key, a bad expression, a repeated name).
    public func resolved(source: ManagedObjectModel, destination: ManagedObjectModel) throws -> MappingModel {
        let file = self.file ?? name
        var names: Set<String> = []
        var result = self
        for (index, mapping) in entityMappings.enumerated() {
            func fail(_ problem: String, _ fix: String, property: String? = nil) -> MappingError {
                MappingError(
                    file: file, place: mapping.name + (property.map { ".\($0)" } ?? ""), problem: problem, fix: fix)
            }
            guard names.insert(mapping.name).inserted else {
                throw fail("two entity mappings are named \(mapping.name)", "rename one of them")
            }
            let sourceEntity = try mapping.sourceEntity.map { name -> EntityDescription in
                guard let entity = source.entity(named: name) else {
                    throw fail(
                        "source entity \(name) is not in version \(sourceVersion)",
                        "use one of: \(source.entities.map(\.name).joined(separator: ", "))")
                }
                return entity
            }
            guard let destinationName = mapping.destinationEntity else {
                // A remove mapping still reads its filter (and a policy may read its expressions).
                try checkExpressions(of: mapping, sourceEntity: sourceEntity, source: source, file: file)
                continue
            }
            guard let destinationEntity = destination.entity(named: destinationName) else {
                throw fail(
                    "destination entity \(destinationName) is not in version \(destinationVersion)",
                    "use one of: \(destination.entities.map(\.name).joined(separator: ", "))")
            }
            let attributes = destination.allAttributes(of: destinationEntity).filter { !$0.isTransient }
            let relationships = destination.allRelationships(of: destinationEntity).filter { !$0.isTransient }
            if let (property, problem, fix) = Self.unfit(mapping, attributes: attributes, relationships: relationships)
            {
                throw fail(problem, fix, property: property)
            }
            let updated = filledIn(
                mapping, attributes: attributes, relationships: relationships, sourceEntity: sourceEntity,
                source: source)
            try checkExpressions(of: updated, sourceEntity: sourceEntity, source: source, file: file)
            result.entityMappings[index] = updated
        }
        return result
    }

    /// `mapping` with Core Data's defaults for every stored property of the destination entity
    /// it does not map: `$source.<name>` when the source has the attribute, the destination
    /// instances of the default entity mapping for a relationship.
    private func filledIn(
        _ mapping: EntityMapping, attributes: [AttributeDescription], relationships: [RelationshipDescription],
        sourceEntity: EntityDescription?, source: ManagedObjectModel
    ) -> EntityMapping {
        var updated = mapping
        updated.attributeMappings = attributes.map { attribute in
            let given = mapping.attributeMappings.first { $0.name == attribute.name }
            if let given, given.expression != nil { return given }
            let inferred = sourceEntity.flatMap { entity in
                source.allAttributes(of: entity).contains { $0.name == attribute.name }
                    ? Expression.sourceKey(attribute.name) : nil
            }
            return PropertyMapping(name: attribute.name, expression: inferred, userInfo: given?.userInfo ?? [:])
        }
        updated.relationshipMappings = relationships.map { relationship in
            let given = mapping.relationshipMappings.first { $0.name == relationship.name }
            if let given, given.expression != nil { return given }
            var inferred: Expression?
            if let sourceEntity,
                let sourceRelationship = source.relationship(named: relationship.name, in: sourceEntity),
                let target = defaultMapping(
                    from: sourceRelationship.destinationEntityName, to: relationship.destinationEntityName)
            {
                inferred = .destinationInstances(mapping: target, relationship: relationship.name)
            }
            return PropertyMapping(name: relationship.name, expression: inferred, userInfo: given?.userInfo ?? [:])
        }
        return updated
    }

    /// The first property mapping of `mapping` the destination entity cannot take (it has no
    /// such stored attribute or relationship, or the attribute cannot hold the constant), with
    /// the problem and the fix.
    static func unfit(
        _ mapping: EntityMapping, attributes: [AttributeDescription], relationships: [RelationshipDescription]
    ) -> (String, String, String)? {
        let entity = mapping.destinationEntity ?? ""
        for property in mapping.attributeMappings where !attributes.contains(where: { $0.name == property.name }) {
            return (
                property.name, "\(entity) has no stored attribute \(property.name)",
                "map one of: \(attributes.map(\.name).joined(separator: ", "))"
            )
        }
        for property in mapping.relationshipMappings where !relationships.contains(where: { $0.name == property.name })
        {
            return (
                property.name, "\(entity) has no relationship \(property.name)",
                "map one of: \(relationships.map(\.name).joined(separator: ", "))"
            )
        }
        return constantPastRange(in: mapping, attributes: attributes).map {
            ($0.0, $0.1, "write a constant the attribute can hold")
        }
    }

    /// The first attribute mapping of `mapping` whose constant its attribute cannot hold, and why.
    static func constantPastRange(in mapping: EntityMapping, attributes: [AttributeDescription]) -> (
        String, String
    )? {
        for property in mapping.attributeMappings {
            if let attribute = attributes.first(where: { $0.name == property.name }),
                let problem = constantPastRange(property.expression, of: attribute)
            {
                return (property.name, problem)
            }
        }
        return nil
    }

    /// Why a constant cannot be stored in `attribute`, an integer one: a number past `Int64`
    /// (`99999999999999999999` reads as a real), which the evaluator refuses on the first row;
    /// said when the plan is made instead. Nil for anything else.
    static func constantPastRange(_ expression: Expression?, of attribute: AttributeDescription) -> String? {
        guard case .constant(.double(let number))? = expression,
            [.integer16, .integer32, .integer64].contains(attribute.attributeType),
            !number.isFinite || abs(number) >= 9_223_372_036_854_775_808
        else { return nil }
        return """
            the constant \(number) is past the range of a 64-bit integer, and \(attribute.name) is an \
            \(attribute.attributeType.displayName) attribute
            """
    }

    /// The entity mapping a relationship's destinations went through: the one from the source
    /// relationship's destination entity to the destination relationship's.
    private func defaultMapping(from sourceEntity: String, to destinationEntity: String) -> String? {
        (entityMappings.first { $0.sourceEntity == sourceEntity && $0.destinationEntity == destinationEntity }
            ?? entityMappings.first { $0.sourceEntity == sourceEntity })?.name
    }

    /// Every value expression and the filter of `mapping`, checked against the source model
    /// (see ``MappingExpressionCheck``): a bad key is an error now, not on the first row.
    private func checkExpressions(
        of mapping: EntityMapping, sourceEntity: EntityDescription?, source: ManagedObjectModel, file: String
    ) throws {
        for property in mapping.propertyMappings {
            guard let expression = property.expression else { continue }
            try MappingExpressionCheck(
                mappingModel: self, mapping: mapping, sourceEntity: sourceEntity, source: source, file: file,
                property: property.name, text: property.text ?? expression.description
            ).check(expression)
        }
        if let filter = mapping.filter {
            try MappingExpressionCheck(
                mappingModel: self, mapping: mapping, sourceEntity: sourceEntity, source: source, file: file,
                property: nil, text: filter.description
            ).check(filter)
        }
    }
}
