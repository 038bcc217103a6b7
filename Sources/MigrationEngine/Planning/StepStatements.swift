import Foundation
import SQLiteStore

/// The SQL one step of a plan runs, in the order it runs, and what it does row by row in Swift
/// instead: what `chrysalis plan --sql` prints, so that a reviewer reads exactly what will happen
/// to a store before it happens. Made by ``MigrationPlan/statements(store:options:)`` from the
/// same compilers the migration runs.
package struct StepStatements: Sendable {
    /// One part of the step: a stage of an entity mapping, a table change, the index builds.
    package struct Part: Sendable {
        /// What the part is (`stage 1 · BookToBook`, `schema changes`, `indexes built`).
        package var title: String
        /// The statements, in order. Parameters (`:from`, `:last`, `:first_key`…) are values
        /// known only as the step runs: a chunk's bounds, the keys reserved for it.
        package var statements: [SQLStatement]
        /// Why the part runs row by row in Swift instead of as SQL; nil when it is SQL.
        package var rowByRow: String?
        /// When the statements apply, and what else happens around them.
        package var notes: [String]

        /// A part.
        package init(title: String, statements: [SQLStatement] = [], rowByRow: String? = nil, notes: [String] = []) {
            self.title = title
            self.statements = statements
            self.rowByRow = rowByRow
            self.notes = notes
        }
    }

    /// The version migrated from.
    package var source: String
    /// The version migrated to.
    package var destination: String
    /// Where the statements run (the store itself in one transaction, a copy, a new store).
    package var summary: String
    /// The parts, in the order they run.
    package var parts: [Part]
}

extension StepStatements.Part {
    /// Each statement as a reviewer reads it, on one line: values written in place as SQL
    /// literals, parameters as `:name`. What `plan --sql` prints and the console's Plan screen
    /// shows, so both say the same.
    package var readableStatements: [String] { statements.map(Self.oneLine) }

    /// `statement` as a person reads it (``SQLStatement/description``), its line breaks and the
    /// indentation after them read as one space: one statement, one line, ready to wrap or copy.
    package static func oneLine(_ statement: SQLStatement) -> String {
        statement.description.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(
            separator: " ")
    }
}
