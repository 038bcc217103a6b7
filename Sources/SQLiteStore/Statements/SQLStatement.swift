/// One SQL statement as a value: its text, with `?` for each argument, and the arguments in
/// order. The migration engine compiles the SQL a step needs into these; a ``StoreConnection``
/// runs them, and `chrysalis plan --sql` prints the very same values.
///
/// An argument known only when the statement runs (the bounds of a chunk of rows, the first key
/// reserved for it) is a named ``Argument/parameter(_:)`` until ``binding(_:)`` gives it a value:
/// a statement prints with its parameters (`:from`), and runs only once every one is bound.
package struct SQLStatement: Hashable, Sendable, CustomStringConvertible {
    /// One argument: a value, or a parameter bound when the statement runs.
    package enum Argument: Hashable, Sendable {
        /// A value known when the statement is compiled.
        case value(SQLValue)
        /// A value bound when the statement runs, by name (printed as `:name`).
        case parameter(String)
    }

    /// The SQL text, with one `?` per argument.
    package var sql: String
    /// The arguments, in the order of their `?`s.
    package var arguments: [Argument]

    /// A statement whose arguments are all known.
    package init(_ sql: String, _ values: [SQLValue] = []) {
        self.sql = sql
        arguments = values.map(Argument.value)
    }

    /// A statement with parameters bound later.
    package init(_ sql: String, arguments: [Argument]) {
        self.sql = sql
        self.arguments = arguments
    }

    /// Whether every argument has a value: the statement can run.
    package var isBound: Bool {
        arguments.allSatisfy { if case .value = $0 { true } else { false } }
    }

    /// The parameters still to bind, in order (each once).
    package var parameters: [String] {
        var seen: Set<String> = []
        return arguments.compactMap { argument in
            guard case .parameter(let name) = argument, seen.insert(name).inserted else { return nil }
            return name
        }
    }

    /// This statement with `values` bound to the parameters of those names; parameters not given
    /// stay parameters.
    package func binding(_ values: [String: SQLValue]) -> SQLStatement {
        SQLStatement(
            sql,
            arguments: arguments.map { argument in
                if case .parameter(let name) = argument, let value = values[name] { return .value(value) }
                return argument
            })
    }

    /// The values to bind, in order; only for a statement ``isBound``.
    var values: [SQLValue] {
        arguments.map { argument in
            guard case .value(let value) = argument else {
                preconditionFailure("SQL parameter \(argument) was never bound: \(sql)")
            }
            return value
        }
    }

    /// The statement as a person reads it: each `?` replaced by its value as an SQL literal, or by
    /// `:name` for a parameter. `?` inside quoted names and string literals stays as it is.
    package var description: String {
        var text = ""
        var remaining = arguments[...]
        var quote: Character?
        for character in sql {
            if let open = quote {
                if character == open || (open == "[" && character == "]") { quote = nil }
                text.append(character)
                continue
            }
            switch character {
            case "'", "\"", "`", "[":
                quote = character
                text.append(character)
            case "?" where !remaining.isEmpty:
                switch remaining.removeFirst() {
                case .value(let value): text += value.literal
                case .parameter(let name): text += ":" + name
                }
            default:
                text.append(character)
            }
        }
        return text
    }
}
