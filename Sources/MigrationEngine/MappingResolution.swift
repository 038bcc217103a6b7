import ObjectModel
import SQLiteStore

/// Checks a mapping model against its source and destination models and fills in what Core
/// Data's mapping compiler would: `$source.<name>` for attributes the source has, and the
/// `destinationInstancesForEntityMappingNamed:` function for relationships.
extension MappingModel {
    /// Selectors `FUNCTION(…)` may call: the manager's two lookups and a few string methods.
    /// Anything else is refused, so a mapping file cannot run arbitrary code.
    public static let allowedSelectors: Set<String> = [
        "destinationInstancesForEntityMappingNamed:sourceInstances:", "destinationInstancesForSourceRelationshipNamed:sourceInstances:",
        "uppercaseString", "lowercaseString", "stringByAppendingString:",
    ]

    /// The mapping with every default filled in, or the first problem found.
    public func resolved(source: ManagedObjectModel, destination: ManagedObjectModel) throws -> MappingModel {
        let file = self.file ?? name
        var names: Set<String> = []
        var result = self
        for (index, mapping) in entityMappings.enumerated() {
            func fail(_ problem: String, _ fix: String, property: String? = nil) -> MappingError {
                MappingError(file: file, place: mapping.name + (property.map { ".\($0)" } ?? ""), problem: problem, fix: fix)
            }
            guard names.insert(mapping.name).inserted else {
                throw fail("two entity mappings are named \(mapping.name)", "rename one of them")
            }
            let sourceEntity = try mapping.sourceEntity.map { name -> EntityDescription in
                guard let entity = source.entity(named: name) else {
                    throw fail("source entity \(name) is not in version \(sourceVersion)",
                               "use one of: \(source.entities.map(\.name).joined(separator: ", "))")
                }
                return entity
            }
            guard let destinationName = mapping.destinationEntity else { continue }
            guard let destinationEntity = destination.entity(named: destinationName) else {
                throw fail("destination entity \(destinationName) is not in version \(destinationVersion)",
                           "use one of: \(destination.entities.map(\.name).joined(separator: ", "))")
            }
            let attributes = destination.allAttributes(of: destinationEntity).filter { !$0.isTransient }
            let relationships = destination.allRelationships(of: destinationEntity).filter { !$0.isTransient }
            for property in mapping.attributeMappings where !attributes.contains(where: { $0.name == property.name }) {
                throw fail("\(destinationName) has no stored attribute \(property.name)",
                           "map one of: \(attributes.map(\.name).joined(separator: ", "))", property: property.name)
            }
            for property in mapping.relationshipMappings where !relationships.contains(where: { $0.name == property.name }) {
                throw fail("\(destinationName) has no relationship \(property.name)",
                           "map one of: \(relationships.map(\.name).joined(separator: ", "))", property: property.name)
            }
            var updated = mapping
            updated.attributeMappings = attributes.map { attribute in
                let given = mapping.attributeMappings.first { $0.name == attribute.name }
                if let given, given.expression != nil { return given }
                let inferred = sourceEntity.flatMap { entity in
                    source.allAttributes(of: entity).contains { $0.name == attribute.name } ? Expression.sourceKey(attribute.name) : nil
                }
                return PropertyMapping(name: attribute.name, expression: inferred, userInfo: given?.userInfo ?? [:])
            }
            updated.relationshipMappings = relationships.map { relationship in
                let given = mapping.relationshipMappings.first { $0.name == relationship.name }
                if let given, given.expression != nil { return given }
                var inferred: Expression?
                if let sourceEntity, let sourceRelationship = source.relationship(named: relationship.name, in: sourceEntity),
                   let target = defaultMapping(from: sourceRelationship.destinationEntityName, to: relationship.destinationEntityName) {
                    inferred = .destinationInstances(mapping: target, relationship: relationship.name)
                }
                return PropertyMapping(name: relationship.name, expression: inferred, userInfo: given?.userInfo ?? [:])
            }
            for property in updated.propertyMappings {
                guard let expression = property.expression else { continue }
                try check(expression, property: property, mapping: updated, sourceEntity: sourceEntity, source: source, file: file)
            }
            result.entityMappings[index] = updated
        }
        return result
    }

    /// The entity mapping a relationship's destinations went through: the one from the source
    /// relationship's destination entity to the destination relationship's.
    private func defaultMapping(from sourceEntity: String, to destinationEntity: String) -> String? {
        (entityMappings.first { $0.sourceEntity == sourceEntity && $0.destinationEntity == destinationEntity }
            ?? entityMappings.first { $0.sourceEntity == sourceEntity })?.name
    }

    private func check(_ expression: Expression, property: PropertyMapping, mapping: EntityMapping,
                       sourceEntity: EntityDescription?, source: ManagedObjectModel, file: String) throws {
        let text = property.text ?? expression.description
        func fail(_ message: String, near fragment: String) -> MappingError {
            let column = text.range(of: fragment).map { text.distance(from: text.startIndex, to: $0.lowerBound) + 1 } ?? 1
            return MappingError(file: file, place: "\(mapping.name).\(property.name)",
                                problem: ExpressionError(text: text, column: column, message: message).description,
                                fix: "correct the value expression")
        }
        switch expression {
        case .keyPath(.variable("source"), let path):
            guard let sourceEntity else { throw fail("$source is not available: \(mapping.name) has no source entity", near: "$source") }
            var entity = sourceEntity
            for (index, key) in path.enumerated() where !key.hasPrefix("@") {
                if path[..<index].contains(where: { $0.hasPrefix("@") }) { break }
                if let relationship = source.relationship(named: key, in: entity), let next = source.entity(named: relationship.destinationEntityName) {
                    entity = next
                } else if source.allAttributes(of: entity).contains(where: { $0.name == key }) {
                    break
                } else {
                    let keys = (source.allAttributes(of: entity).map(\.name) + source.allRelationships(of: entity).map(\.name)).sorted()
                    throw fail("\(entity.name) has no key \"\(key)\" (keys: \(keys.joined(separator: ", ")))", near: key)
                }
            }
        case .variable(let name), .keyPath(.variable(let name), _):
            let known = ["source", "destination", "manager", "entityMapping", "propertyMapping", "entityPolicy"]
            guard known.contains(name) else {
                throw fail("unknown variable $\(name) (known: \(known.map { "$" + $0 }.joined(separator: ", ")))", near: "$" + name)
            }
        case .function(let receiver, let selector, let arguments):
            guard Self.allowedSelectors.contains(selector) else {
                throw fail("FUNCTION selector \"\(selector)\" is not allowed (allowed: \(Self.allowedSelectors.sorted().joined(separator: ", ")))", near: selector)
            }
            if selector == "destinationInstancesForEntityMappingNamed:sourceInstances:", case .constant(.string(let target))? = arguments.first,
               entityMapping(named: target) == nil {
                throw fail("no entity mapping is named \"\(target)\" (mappings: \(entityMappings.map(\.name).joined(separator: ", ")))", near: target)
            }
            for part in [receiver] + arguments {
                try check(part, property: property, mapping: mapping, sourceEntity: sourceEntity, source: source, file: file)
            }
        case .keyPath(let base, _):
            // A key path on a computed base (FUNCTION(…).length): the base is checked like any value.
            try check(base, property: property, mapping: mapping, sourceEntity: sourceEntity, source: source, file: file)
        case .arithmetic(_, let lhs, let rhs):
            try check(lhs, property: property, mapping: mapping, sourceEntity: sourceEntity, source: source, file: file)
            try check(rhs, property: property, mapping: mapping, sourceEntity: sourceEntity, source: source, file: file)
        case .negate(let inner):
            try check(inner, property: property, mapping: mapping, sourceEntity: sourceEntity, source: source, file: file)
        case .builtin(_, let arguments), .aggregate(let arguments):
            for part in arguments { try check(part, property: property, mapping: mapping, sourceEntity: sourceEntity, source: source, file: file) }
        default: break
        }
    }
}
