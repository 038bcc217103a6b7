import Foundation
import SQLiteStore

/// The variables, keys and functions an expression sees while one property is migrated:
/// `$source`, `$destination`, `$manager`, `$entityMapping`, and the stores behind them.
struct MigrationScope: ExpressionContext {
    let manager: MigrationManager
    let source: ObjectID?
    let destination: ObjectID?
    let mapping: EntityMapping?

    private static let managerMarker = ExpressionValue.value(.string("$manager"))
    private static let policyMarker = ExpressionValue.value(.string("$entityPolicy"))

    func variable(_ name: String) throws -> ExpressionValue {
        switch name {
        case "source": return source.map { .object(ObjectRef(side: .source, id: $0)) } ?? .null
        case "destination": return destination.map { .object(ObjectRef(side: .destination, id: $0)) } ?? .null
        case "manager": return Self.managerMarker
        case "entityPolicy": return Self.policyMarker
        case "entityMapping": return .value(mapping.map { .string($0.name) } ?? .null)
        case "propertyMapping": return .null
        default: throw EvaluationError("unknown variable $\(name)")
        }
    }

    func value(of object: ObjectRef, key: String) throws -> ExpressionValue {
        let layout = object.side == .source ? manager.stores.sourceLayout : manager.stores.destinationLayout
        let reader = object.side == .source ? manager.stores.sourceReader : manager.stores.destinationReader
        if object.side == .destination { try manager.passState.writePendingInsert() }
        guard let entityName = layout.numbering.name(of: object.id.entityNumber), layout.hasEntity(entityName) else {
            throw EvaluationError("object \(object.id) has no entity")
        }
        switch layout.property(key, of: entityName) {
        case .relationship(let relationship, _)?:
            let targets = try reader.destinations(of: object.id, key).map {
                ExpressionValue.object(ObjectRef(side: object.side, id: $0))
            }
            return relationship.isToMany ? .collection(targets) : (targets.first ?? .null)
        case .attribute?:
            guard let stored = try manager.passState.cachedObject(object) else { return .null }
            return .value(stored.values[key] ?? .null)
        case nil:
            throw EvaluationError("\(entityName) has no key \"\(key)\"")
        }
    }

    func objectURI(_ object: ObjectRef) throws -> URL {
        let layout = object.side == .source ? manager.stores.sourceLayout : manager.stores.destinationLayout
        guard let entity = layout.numbering.name(of: object.id.entityNumber),
            let uuid = manager.stores.storeUUID,
            let url = URL(string: "x-coredata://\(uuid)/\(entity)/p\(object.id.primaryKey)")
        else { throw EvaluationError("object \(object.id) has no URI") }
        return url
    }

    func call(_ receiver: ExpressionValue, _ selector: String, _ arguments: [ExpressionValue]) throws -> ExpressionValue
    {
        switch selector {
        case "destinationInstancesForEntityMappingNamed:sourceInstances:",
            "destinationInstancesForSourceRelationshipNamed:sourceInstances:":
            guard receiver == Self.managerMarker || receiver == Self.policyMarker else {
                throw EvaluationError("\(selector) must be sent to $manager")
            }
            guard arguments.count == 2, case .value(.string(let name)) = arguments[0] else {
                throw EvaluationError("\(selector) takes a name and the source instances")
            }
            let mappingName =
                selector.hasPrefix("destinationInstancesForEntityMappingNamed")
                ? name : try mappingName(forSourceRelationship: name)
            let sources = arguments[1].objects.filter { $0.side == .source }.map(\.id)
            let targets = try manager.destinationInstances(forEntityMappingNamed: mappingName, sourceInstances: sources)
            return .collection(targets.map { .object(ObjectRef(side: .destination, id: $0)) })
        case "uppercaseString", "lowercaseString", "stringByAppendingString:":
            guard case .value(.string(let text)) = receiver else { return receiver.isNull ? .null : receiver }
            if selector == "uppercaseString" { return .value(.string(text.uppercased())) }
            if selector == "lowercaseString" { return .value(.string(text.lowercased())) }
            guard case .value(.string(let suffix))? = arguments.first else { return .value(.string(text)) }
            return .value(.string(text + suffix))
        default:
            guard receiver == Self.policyMarker else {
                throw EvaluationError("FUNCTION selector \"\(selector)\" is not allowed")
            }
            return try policyFunction(selector, arguments)
        }
    }

    /// `FUNCTION($entityPolicy, selector, …)`: the running entity mapping's policy answers it.
    private func policyFunction(_ selector: String, _ arguments: [ExpressionValue]) throws -> ExpressionValue {
        guard let mapping, let policy = manager.passState.policiesByMapping[mapping.name] else {
            throw EvaluationError(
                """
                FUNCTION($entityPolicy, \"\(selector)\", …) needs the entity mapping's custom policy, and none is \
                running
                """
            )
        }
        guard let result = try policy.function(selector, arguments: arguments, manager: manager) else {
            throw EvaluationError(
                "policy \(mapping.policyName ?? "of \(mapping.name)") does not answer FUNCTION($entityPolicy, \"\(selector)\", …): "
                    + "implement function(_:arguments:manager:) for \"\(selector)\"")
        }
        return result
    }

    /// The entity mapping that migrated the destinations of the current source's relationship.
    private func mappingName(forSourceRelationship name: String) throws -> String {
        guard let sourceName = mapping?.sourceEntity, let entity = manager.sourceModel.entity(named: sourceName),
            let relationship = manager.sourceModel.relationship(named: name, in: entity),
            let target = manager.mappingModel.entityMappings.first(where: {
                $0.sourceEntity == relationship.destinationEntityName
            })
        else {
            throw EvaluationError("no entity mapping migrates the destinations of relationship \"\(name)\"")
        }
        return target.name
    }
}
