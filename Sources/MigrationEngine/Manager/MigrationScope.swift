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
        let layout = object.side == .source ? manager.pass.sourceLayout : manager.pass.destinationLayout
        let reader = object.side == .source ? manager.pass.sourceReader : manager.pass.destinationReader
        if object.side == .destination { try manager.pass.writePendingInsert() }
        guard let entityName = layout.numbering.name(of: object.id.entityNumber), layout.hasEntity(entityName) else {
            throw EvaluationError("object \(object.id) has no entity")
        }
        switch layout.property(key, of: entityName) {
        case .relationship(let relationship, _)?:
            let targets = try reader.destinations(of: object.id, key).map { ExpressionValue.object(ObjectRef(side: object.side, id: $0)) }
            return relationship.isToMany ? .collection(targets) : (targets.first ?? .null)
        case .attribute?:
            guard let stored = try manager.pass.cachedObject(object) else { return .null }
            return .value(stored.values[key] ?? .null)
        case nil:
            throw EvaluationError("\(entityName) has no key \"\(key)\"")
        }
    }

    func call(_ receiver: ExpressionValue, _ selector: String, _ arguments: [ExpressionValue]) throws -> ExpressionValue {
        switch selector {
        case "destinationInstancesForEntityMappingNamed:sourceInstances:", "destinationInstancesForSourceRelationshipNamed:sourceInstances:":
            guard receiver == Self.managerMarker || receiver == Self.policyMarker else { throw EvaluationError("\(selector) must be sent to $manager") }
            guard arguments.count == 2, case .value(.string(let name)) = arguments[0] else {
                throw EvaluationError("\(selector) takes a name and the source instances")
            }
            let mappingName = selector.hasPrefix("destinationInstancesForEntityMappingNamed") ? name : try mappingName(forSourceRelationship: name)
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
            guard receiver == Self.policyMarker else { throw EvaluationError("FUNCTION selector \"\(selector)\" is not allowed") }
            return try policyFunction(selector, arguments)
        }
    }

    /// `FUNCTION($entityPolicy, selector, …)`: the running entity mapping's policy answers it.
    private func policyFunction(_ selector: String, _ arguments: [ExpressionValue]) throws -> ExpressionValue {
        guard let mapping, let policy = manager.pass.policiesByMapping[mapping.name] else {
            throw EvaluationError("FUNCTION($entityPolicy, \"\(selector)\", …) needs the entity mapping's custom policy, and none is running")
        }
        guard let result = try policy.function(selector, arguments: arguments, manager: manager) else {
            throw EvaluationError("policy \(mapping.policyName ?? "of \(mapping.name)") does not answer FUNCTION($entityPolicy, \"\(selector)\", …): "
                                  + "implement function(_:arguments:manager:) for \"\(selector)\"")
        }
        return result
    }

    /// The entity mapping that migrated the destinations of the current source's relationship.
    private func mappingName(forSourceRelationship name: String) throws -> String {
        guard let sourceName = mapping?.sourceEntity, let entity = manager.sourceModel.entity(named: sourceName),
              let relationship = manager.sourceModel.relationship(named: name, in: entity),
              let target = manager.mappingModel.entityMappings.first(where: { $0.sourceEntity == relationship.destinationEntityName }) else {
            throw EvaluationError("no entity mapping migrates the destinations of relationship \"\(name)\"")
        }
        return target.name
    }
}

/// Evaluates a filter ``Predicate`` on one object.
struct PredicateEvaluator {
    let evaluator: ExpressionEvaluator

    func matches(_ predicate: Predicate) throws -> Bool {
        switch predicate {
        case .truePredicate: return true
        case .falsePredicate: return false
        case .and(let parts): return try parts.allSatisfy(matches)
        case .or(let parts): return try parts.contains(where: matches)
        case .not(let inner): return try !matches(inner)
        case let .comparison(lhs, op, rhs, caseInsensitive):
            return try compare(try evaluator.evaluate(lhs).plain, op, try evaluator.evaluate(rhs).plain, caseInsensitive)
        }
    }

    private func compare(_ lhs: ExpressionValue, _ op: Predicate.ComparisonOperator, _ rhs: ExpressionValue, _ folding: Bool) throws -> Bool {
        func text(_ value: ExpressionValue) -> String? {
            guard case .value(.string(let string)) = value else { return nil }
            return folding ? string.lowercased() : string
        }
        switch op {
        case .equal, .notEqual:
            let equal = (lhs.number != nil && rhs.number != nil) ? lhs.number == rhs.number : (text(lhs) ?? "\(lhs)") == (text(rhs) ?? "\(rhs)")
            return op == .equal ? equal : !equal
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            let order: ComparisonResult
            if let a = lhs.number, let b = rhs.number { order = a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame }
            else if let a = text(lhs), let b = text(rhs) { order = a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame }
            else { return false }
            switch op {
            case .less: return order == .orderedAscending
            case .lessOrEqual: return order != .orderedDescending
            case .greater: return order == .orderedDescending
            default: return order != .orderedAscending
            }
        case .beginsWith, .endsWith, .contains, .like:
            guard let a = text(lhs), let b = text(rhs) else { return false }
            switch op {
            case .beginsWith: return a.hasPrefix(b)
            case .endsWith: return a.hasSuffix(b)
            case .contains: return a.contains(b)
            default: return Self.like(a, b)
            }
        case .in:
            guard case .collection(let items) = rhs else { return false }
            return try items.contains { try compare(lhs, .equal, $0, folding) }
        }
    }

    /// `LIKE` with `*` (any run) and `?` (one character), as in Core Data. A loop that walks
    /// the text once per `*` it retries, in constant memory: a recursive matcher used a stack
    /// frame per character and crashed the process on any text of 64 KB or more.
    static func like(_ text: String, _ pattern: String) -> Bool {
        let pattern = Array(pattern)
        var t = text.startIndex, p = 0
        // The last `*` seen, and where in the text its run would end next if retried.
        var star: Int?, retry = text.startIndex
        while t < text.endIndex {
            if p < pattern.count, pattern[p] == "?" || (pattern[p] != "*" && pattern[p] == text[t]) {
                t = text.index(after: t)
                p += 1
            } else if p < pattern.count, pattern[p] == "*" {
                star = p
                retry = t
                p += 1
            } else if let star {
                retry = text.index(after: retry)
                t = retry
                p = star + 1
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}
