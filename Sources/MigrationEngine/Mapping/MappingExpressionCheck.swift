import ObjectModel

/// Checks one value expression or filter of an entity mapping against the source model when the
/// plan is made, so a mistake is reported before any row moves rather than on the first row:
/// every key path read from the source object (`$source.a.b`, and bare keys, which read the
/// source object too) wherever it sits — FUNCTION arguments, arithmetic, TERNARY conditions and
/// branches, filters — plus variables, FUNCTION selectors and the entity mappings they name.
///
/// Errors name the file, the entity mapping and the property (or `filter`), the column of the
/// bad key in the expression's text, and the keys that would do.
struct MappingExpressionCheck {
    let mappingModel: MappingModel
    let mapping: EntityMapping
    let sourceEntity: EntityDescription?
    let source: ManagedObjectModel
    let file: String
    /// The destination property checked, or `nil` for the filter.
    let property: String?
    /// The expression's text as written (or as printed, when there is none): what columns count in.
    let text: String

    /// The migration variables Core Data binds.
    static let variables = ["source", "destination", "manager", "entityMapping", "propertyMapping", "entityPolicy"]

    /// Checks every part of `expression`.
    func check(_ expression: Expression) throws {
        switch expression {
        case .keyPath(.variable("source"), let path): try checkSourcePath(path, base: .variable("source"))
        case .keyPath(.evaluatedObject, let path): try checkSourcePath(path, base: .evaluatedObject)
        case .variable(let name), .keyPath(.variable(let name), _):
            guard Self.variables.contains(name) else {
                throw fail(
                    "unknown variable $\(name) (known: \(Self.variables.map { "$" + $0 }.joined(separator: ", ")))",
                    at: column(of: "$" + name), fix: "correct the value expression")
            }
        case let .function(.builtin("CAST", arguments), selector, _) where arguments.last == .constant(.string("Class")):
            throw classMethodCall(arguments, selector)
        case let .function(.variable("entityPolicy"), selector, arguments)
        where !MappingModel.allowedSelectors.contains(selector):
            // Core Data sends the message to the mapping's custom policy: the app's code, which
            // the registered policy runs (EntityMigrationPolicy.function); the plan checks that
            // the policy is registered.
            guard mapping.policyName != nil else {
                throw fail(
                    """
                    FUNCTION($entityPolicy, \"\(selector)\", …) calls a method of the entity mapping's custom \
                    policy, and \(mapping.name) names none
                    """,
                    at: column(of: selector),
                    fix: "name the custom policy in the entity mapping, or correct the value expression")
            }
            for part in arguments { try check(part) }
        case let .function(receiver, selector, arguments):
            try checkFunction(selector, arguments)
            for part in [receiver] + arguments { try check(part) }
        case .keyPath(let base, _):
            // A key path on a computed base (FUNCTION(…).length): the base is checked like any value.
            try check(base)
        case .arithmetic(_, let lhs, let rhs):
            try check(lhs)
            try check(rhs)
        case .negate(let inner): try check(inner)
        case .builtin(_, let arguments), .aggregate(let arguments):
            for part in arguments { try check(part) }
        case let .conditional(predicate, whenTrue, whenFalse):
            try check(predicate)
            try check(whenTrue)
            try check(whenFalse)
        case .constant, .evaluatedObject: break
        }
    }

    /// `FUNCTION(CAST("Name", "Class"), selector, …)`: Core Data calls `+[Name selector]`, a class
    /// method of the app's: code that only the app has. A custom policy is where an app's code
    /// runs in Chrysalis.
    private func classMethodCall(_ arguments: [Expression], _ selector: String) -> Error {
        let name =
            arguments.first.map {
                if case .constant(.string(let text)) = $0 { return text } else { return $0.description }
            } ?? "?"
        return fail(
            """
            FUNCTION(CAST(\"\(name)\", \"Class\"), \"\(selector)\", …) calls +[\(name) \(selector)], a class \
            method of the app's, which Chrysalis cannot run
            """,
            at: column(of: name),
            fix:
                """
                compute this value in a custom policy registered for the entity mapping (EntityMigrationPolicy), \
                and leave the attribute's value expression empty
                """
        )
    }

    /// Checks every expression of `predicate`.
    func check(_ predicate: Predicate) throws {
        switch predicate {
        case .truePredicate, .falsePredicate: break
        case .and(let parts), .or(let parts):
            for part in parts { try check(part) }
        case .not(let inner): try check(inner)
        case let .comparison(lhs, _, rhs, _):
            try check(lhs)
            try check(rhs)
        }
    }

    private func checkFunction(_ selector: String, _ arguments: [Expression]) throws {
        guard MappingModel.allowedSelectors.contains(selector) else {
            throw fail(
                """
                FUNCTION selector \"\(selector)\" is not allowed (allowed: \
                \(MappingModel.allowedSelectors.sorted().joined(separator: ", ")))
                """,
                at: column(of: selector), fix: "correct the value expression")
        }
        if selector == "destinationInstancesForEntityMappingNamed:sourceInstances:",
            case .constant(.string(let target))? = arguments.first,
            mappingModel.entityMapping(named: target) == nil
        {
            throw fail(
                """
                no entity mapping is named \"\(target)\" (mappings: \
                \(mappingModel.entityMappings.map(\.name).joined(separator: ", ")))
                """,
                at: column(of: target), fix: "correct the value expression")
        }
    }

    /// Walks `path` from the source entity: relationships lead on (to the destination entity or
    /// any of its subentities, whose instances a relationship may hold), an attribute ends the
    /// walk (only collection operators may follow it), and anything else is an error.
    private func checkSourcePath(_ path: [String], base: Expression) throws {
        var candidates = [try requireSourceEntity(path, base: base)]
        var attribute: (name: String, keys: [String])?
        var objectID = false
        for (index, key) in path.enumerated() where !key.hasPrefix("@") {
            let owner = candidates.count == 1 ? candidates[0].name : "\(candidates[0].name) (or a subentity)"
            // An object's `objectID.URIRepresentation` is a URI, whose keys follow.
            if objectID {
                guard key == "URIRepresentation" else {
                    throw fail(
                        "objectID is read for its URIRepresentation, not \"\(key)\"",
                        at: column(of: path, upTo: index, base: base), fix: "write objectID.URIRepresentation")
                }
                (objectID, attribute) = (false, ("\(owner).objectID.URIRepresentation", ValueKeys.keys(of: .uri)))
                continue
            }
            if attribute == nil, key == "objectID", index + 1 < path.count,
                !candidates.contains(where: { entity in
                    source.relationship(named: key, in: entity) != nil
                        || source.allAttributes(of: entity).contains { $0.name == key }
                })
            {
                objectID = true
                continue
            }
            if let found = attribute {
                // A value's own key (a URI's absoluteString) ends the walk with a plain value.
                if found.keys.contains(key) { attribute = (found.name + "." + key, []); continue }
                let offered = found.keys.isEmpty ? "" : " (its keys: \(found.keys.joined(separator: ", ")))"
                throw fail(
                    "\(found.name) is an attribute: its value has no key \"\(key)\"\(offered)",
                    at: column(of: path, upTo: index, base: base),
                    fix: "end the key path at \(found.name), or follow a relationship instead")
            }
            if let relationship = candidates.lazy.compactMap({ source.relationship(named: key, in: $0) }).first,
                let next = source.entity(named: relationship.destinationEntityName)
            {
                candidates = descendants(of: next)
            } else if let found = candidates.lazy.compactMap({ entity in
                source.allAttributes(of: entity).first { $0.name == key }
            }).first {
                attribute = ("\(owner).\(key)", ValueKeys.keys(of: found.attributeType))
            } else {
                throw unknownKey(path, at: index, base: base, among: candidates, owner: owner)
            }
        }
    }

    /// The mapping's source entity, which a key path of the source reads from.
    private func requireSourceEntity(_ path: [String], base: Expression) throws -> EntityDescription {
        guard let sourceEntity else {
            let what =
                base == .variable("source") ? "$source" : "the key \"\(path.first ?? "")\" (a key of the source object)"
            throw fail(
                "\(what) has nothing to read: \(mapping.name) has no source entity",
                at: column(of: path, upTo: 0, base: base),
                fix: "give \(mapping.name) a source entity, or use constants")
        }
        return sourceEntity
    }

    /// The error for a key path's `index`th key, which none of `candidates` has: it lists their keys.
    private func unknownKey(
        _ path: [String], at index: Int, base: Expression, among candidates: [EntityDescription], owner: String
    ) -> MappingError {
        let key = path[index]
        let keys = Set(
            candidates.flatMap {
                source.allAttributes(of: $0).map(\.name) + source.allRelationships(of: $0).map(\.name)
            }
        ).sorted()
        return fail(
            "\(owner) has no key \"\(key)\" (keys: \(keys.joined(separator: ", ")))",
            at: column(of: path, upTo: index, base: base),
            fix: missingKeyFix(key, bare: base == .evaluatedObject && index == 0 && path.count == 1, owner: owner))
    }

    /// A bare word in a value expression is a key path, and usually meant as text.
    private func missingKeyFix(_ key: String, bare: Bool, owner: String) -> String {
        guard bare, let property else { return "use one of \(owner)'s keys" }
        let constant = Expression.literal(.string(key))
        let yaml =
            file.hasSuffix(".yaml") || file.hasSuffix(".yml")
            ? " (in a YAML mapping, quote it again inside YAML's quotes: \(property): '\(constant.replacingOccurrences(of: "'", with: "''"))')"
            : ""
        return
            "use one of \(owner)'s keys, or for the text \(key) write a string constant in quotes: \(constant)\(yaml)"
    }

    private func descendants(of entity: EntityDescription) -> [EntityDescription] {
        var result = [entity], index = 0
        while index < result.count, result.count <= source.entities.count {
            result += source.subentities(of: result[index]).filter { child in !result.contains { $0.name == child.name }
            }
            index += 1
        }
        return result
    }

    private func fail(_ message: String, at column: Int, fix: String) -> MappingError {
        MappingError(
            file: file, place: "\(mapping.name).\(property ?? "filter")",
            problem: ExpressionError(text: text, column: column, message: message).description, fix: fix)
    }

    /// The 1-based column of `fragment` in the text (1 when it is not there).
    private func column(of fragment: String) -> Int {
        text.range(of: fragment).map { text.distance(from: text.startIndex, to: $0.lowerBound) + 1 } ?? 1
    }

    /// The column of `path[index]` where the text writes the key path `base.path…`: found among
    /// the tokens, so a key is not mistaken for a part of another word.
    private func column(of path: [String], upTo index: Int, base: Expression) -> Int {
        guard let tokens = try? ExpressionLexer.tokens(text) else { return column(of: path[index]) }
        func matches(_ token: ExpressionLexer.Token, _ key: String) -> Bool {
            key.hasPrefix("@")
                ? token.kind == .collectionOperator(String(key.dropFirst()))
                : token.kind == .identifier(key) || token.kind == .escaped(key)
        }
        func preceded(at start: Int) -> Bool {
            let dot = start > 0 && tokens[start - 1].kind == .symbol(".")
            let before = start > 1 ? tokens[start - 2].kind : nil
            if case .variable(let name) = base { return dot && before == .variable(name) }
            if dot, case .identifier(let word)? = before { return word.uppercased() == "SELF" }
            return !dot
        }
        for start in tokens.indices where preceded(at: start) {
            let end = start + 2 * index
            guard end < tokens.count else { break }
            let found = (0...index).allSatisfy {
                matches(tokens[start + 2 * $0], path[$0])
                    && ($0 == 0 || tokens[start + 2 * $0 - 1].kind == .symbol("."))
            }
            if found { return tokens[end].column }
        }
        return column(of: path[index])
    }
}
