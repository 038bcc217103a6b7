import Foundation
import ObjectModel
import SQLiteStore

/// Compiles expressions and filter predicates over one source entity to SQL, for the set-based
/// fast path. Compiles only what gives exactly the evaluator's result (nil-safe comparisons,
/// division by non-zero constants, matching storage encodings); anything else returns `nil` and
/// the entity mapping runs row by row.
struct ExpressionSQL {
    /// What kind of SQL value an expression yields.
    enum Kind: Hashable { case integer, real, boolean, date, text, blob(external: Bool), null }

    struct Fragment {
        var sql: String
        var arguments: [SQLValue]
        var kind: Kind
    }

    let layout: StoreLayout
    let entity: EntityDescription
    /// The alias of the source table in the query.
    let alias: String

    /// The deepest nesting of parentheses a compiled fragment may have. SQLite's parser keeps
    /// 100 entries on its stack (`YYSTACKDEPTH`), and a `CASE` nested in another's `THEN` takes
    /// about six: 18 of them overflow it (`parser stack overflow`, found with the `sqlite3`
    /// shell), where the evaluator takes any depth. Deeper fragments run row by row.
    static let deepestNesting = 12

    /// Whether SQLite's parser takes `fragment` within its stack (``deepestNesting``), counting
    /// parentheses outside quoted names and text.
    static func fitsParser(_ fragment: Fragment) -> Bool {
        var depth = 0, deepest = 0
        var quote: Character?
        for character in fragment.sql {
            if let open = quote {
                if character == open { quote = nil }
                continue
            }
            switch character {
            case "\"", "'": quote = character
            case "(":
                depth += 1
                deepest = max(deepest, depth)
            case ")": depth -= 1
            default: break
            }
        }
        return deepest <= deepestNesting
    }

    func compile(_ expression: Expression) -> Fragment? {
        switch expression {
        case .constant(let value):
            switch value {
            case .null: return Fragment(sql: "NULL", arguments: [], kind: .null)
            case .integer(let number): return Fragment(sql: "?", arguments: [.integer(number)], kind: .integer)
            case .double(let number): return Fragment(sql: "?", arguments: [.real(number)], kind: .real)
            case .bool(let flag): return Fragment(sql: "?", arguments: [.integer(flag ? 1 : 0)], kind: .boolean)
            case .string(let text): return Fragment(sql: "?", arguments: [.text(text)], kind: .text)
            default: return nil
            }
        // Bare keys (and SELF.key) are the source object's: it is what the evaluator binds as SELF.
        case .keyPath(.variable("source"), let path), .keyPath(.evaluatedObject, let path): return keyPath(path)
        case .negate(let operand):
            guard let inner = compile(operand), inner.kind == .integer || inner.kind == .real else { return nil }
            return checked(Fragment(sql: "(-\(inner.sql))", arguments: inner.arguments, kind: inner.kind), expression)
        case .arithmetic(let op, let lhs, let rhs):
            guard let a = compile(lhs), let b = compile(rhs), [Kind.integer, .real].contains(a.kind),
                [Kind.integer, .real].contains(b.kind)
            else { return nil }
            // `**` has no SQL: row by row. Division only by a constant other than zero; two
            // integers divide as integers (SQLite's `/` on integers, toward zero, as Foundation's).
            if op == .power { return nil }
            if op == .divide {
                guard case .constant(let divisor) = rhs,
                    [StoreValue.integer(0), .double(0)].allSatisfy({ $0 != divisor })
                else { return nil }
                let whole = a.kind == .integer && b.kind == .integer
                return checked(
                    Fragment(
                        sql: whole ? "(\(a.sql) / \(b.sql))" : "(CAST(\(a.sql) AS REAL) / \(b.sql))",
                        arguments: a.arguments + b.arguments, kind: whole ? .integer : .real),
                    expression)
            }
            let kind: Kind = a.kind == .integer && b.kind == .integer ? .integer : .real
            return checked(
                Fragment(sql: "(\(a.sql) \(op.rawValue) \(b.sql))", arguments: a.arguments + b.arguments, kind: kind),
                expression)
        case let .conditional(predicate, whenTrue, whenFalse): return conditional(predicate, whenTrue, whenFalse)
        default: return nil
        }
    }

    /// `fragment`, an arithmetic result, through ``CheckedArithmetic``: SQLite would turn an
    /// overflow into infinity (or an integer into a real) and store it; the evaluator stops
    /// with an error there, and so does the compiled statement.
    private func checked(_ fragment: Fragment, _ expression: Expression) -> Fragment {
        Fragment(
            sql: CheckedArithmetic.guarded(fragment.sql, integer: fragment.kind == .integer),
            arguments: fragment.arguments + [
                CheckedArithmetic.label(expression: expression.description, entity: entity.name)
            ],
            kind: fragment.kind)
    }

    /// `TERNARY(p, a, b)` as `CASE WHEN p THEN a ELSE b END`. The branches must be of one kind
    /// (or one of them `nil`), so the destination conversion in ``stored(_:in:expression:)`` is right for
    /// whichever the row takes; the condition is never NULL (see ExpressionSQL+Predicates.swift).
    private func conditional(_ predicate: Predicate, _ whenTrue: Expression, _ whenFalse: Expression) -> Fragment? {
        guard let condition = compile(predicate), let a = compile(whenTrue), let b = compile(whenFalse) else {
            return nil
        }
        let kind: Kind
        if a.kind == b.kind || b.kind == .null {
            kind = a.kind
        } else if a.kind == .null {
            kind = b.kind
        } else {
            return nil
        }
        return Fragment(
            sql: "(CASE WHEN \(condition.sql) THEN \(a.sql) ELSE \(b.sql) END)",
            arguments: condition.arguments + a.arguments + b.arguments, kind: kind)
    }

    /// `$source.a.b.c`: each to-one hop becomes a nested `SELECT … WHERE Z_PK = <key>`, the last
    /// key an attribute column.
    private func keyPath(_ path: [String]) -> Fragment? {
        let model = layout.model
        var current = entity
        var table = alias
        var hops: [(from: String, table: String, alias: String)] = []
        for (index, key) in path.enumerated() {
            guard !key.hasPrefix("@") else { return nil }
            if index == path.count - 1 {
                guard let attribute = model.allAttributes(of: current).first(where: { $0.name == key }),
                    !attribute.isTransient,
                    let column = layout.column(entity: current.name, property: key), let kind = Self.kind(of: attribute)
                else { return nil }
                var sql = "\(table).\(SQLIdentifier.quote(column.name))"
                for hop in hops.reversed() {
                    sql = "(SELECT \(sql) FROM \(hop.table) \(hop.alias) WHERE \(hop.alias).Z_PK = \(hop.from))"
                }
                return Fragment(sql: sql, arguments: [], kind: kind)
            }
            guard let relationship = model.relationship(named: key, in: current), !relationship.isToMany,
                case let .foreignKey(_, column, _)? = layout.storage(entity: current.name, relationship: key),
                let next = model.entity(named: relationship.destinationEntityName),
                let nextTable = layout.table(for: next.name)
            else { return nil }
            let nextAlias = "\(alias)_\(index)"
            hops.append(
                (
                    from: "\(table).\(SQLIdentifier.quote(column))",
                    table: "src.\(SQLIdentifier.quote(nextTable.name))", alias: nextAlias
                ))
            table = nextAlias
            current = next
        }
        return nil
    }

    static func kind(of attribute: AttributeDescription) -> Kind? {
        switch attribute.attributeType {
        case .integer16, .integer32, .integer64: return .integer
        case .boolean: return .boolean
        case .date: return .date
        case .double, .float, .decimal: return .real
        case .string, .uri: return .text
        case .binaryData, .transformable, .uuid: return .blob(external: attribute.allowsExternalBinaryDataStorage)
        default: return nil
        }
    }

    /// The SQL that stores `fragment` (compiled from `expression`) in an attribute like
    /// `destination`, converting as the evaluator would; `nil` when the kinds do not convert
    /// exactly. A real stored in an integer attribute is truncated, and one past `Int64` stops
    /// the statement as the evaluator stops (SQLite's `CAST` would store `Int64.max`).
    func stored(_ fragment: Fragment, in destination: AttributeDescription, expression: Expression) -> Fragment? {
        guard let target = Self.kind(of: destination) else { return nil }
        func sql(_ text: String) -> Fragment { Fragment(sql: text, arguments: fragment.arguments, kind: target) }
        switch (fragment.kind, target) {
        case (.null, _): return fragment
        case (.integer, .integer), (.boolean, .boolean), (.date, .date), (.text, .text): return fragment
        case (.real, .real), (.integer, .real), (.real, .date): return fragment
        case (.real, .integer):
            let guarded = Fragment(
                sql: CheckedArithmetic.guarded(fragment.sql, integer: true),
                arguments: fragment.arguments + [
                    CheckedArithmetic.label(expression: expression.description, entity: entity.name)
                ], kind: .real)
            return Fragment(sql: "CAST(\(guarded.sql) AS INTEGER)", arguments: guarded.arguments, kind: .integer)
        case (.boolean, .integer): return sql("CAST(\(fragment.sql) AS INTEGER)")
        case (.integer, .boolean), (.real, .boolean): return sql("(\(fragment.sql) != 0)")
        case (.boolean, .real): return fragment
        case (.blob(let a), .blob(let b)) where a == b: return fragment
        default: return nil
        }
    }
}
