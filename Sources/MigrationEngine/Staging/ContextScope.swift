import SQLiteStore

/// What a fetch's predicate sees: the object's keys, through relationships, read from the
/// context's store. It has no variables and calls only the functions expressions allow.
struct ContextScope: ExpressionContext {
    let context: MigrationContext

    func variable(_ name: String) throws -> ExpressionValue {
        throw EvaluationError("a fetch's predicate has no variable $\(name): name the object's keys")
    }

    func value(of object: ObjectRef, key: String) throws -> ExpressionValue {
        guard let entity = context.layout.numbering.name(of: object.id.entityNumber) else {
            throw EvaluationError("object \(object.id) has no entity")
        }
        switch context.layout.property(key, of: entity) {
        case .relationship(let relationship, _)?:
            let targets = try context.reader.destinations(of: object.id, key).map {
                ExpressionValue.object(ObjectRef(side: .source, id: $0))
            }
            return relationship.isToMany ? .collection(targets) : (targets.first ?? .null)
        case .attribute?:
            return .value(try context.reader.object(object.id)?.values[key] ?? .null)
        case nil:
            throw EvaluationError("\(entity) has no key \"\(key)\" in \(context.version)")
        }
    }

    func call(_ receiver: ExpressionValue, _ selector: String, _ arguments: [ExpressionValue]) throws -> ExpressionValue
    {
        switch (selector, receiver) {
        case ("uppercaseString", .value(.string(let text))): return .value(.string(text.uppercased()))
        case ("lowercaseString", .value(.string(let text))): return .value(.string(text.lowercased()))
        default: throw EvaluationError("FUNCTION selector \"\(selector)\" is not available in a fetch")
        }
    }
}
