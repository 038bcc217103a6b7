import MigrationEngine

extension ConsoleState {
    /// One step's SQL as the Plan screen shows it under Enter: where it runs, and its parts in
    /// the order they run, each statement on one line as `chrysalis plan --sql` prints it. A plain
    /// value made from `StepStatements`, so screens stay pure and states compare equal.
    package struct StepSQL: Sendable, Equatable {
        /// One part: a stage of an entity mapping, a table change, the index builds.
        package struct Part: Sendable, Equatable {
            /// What the part is (`schema changes`, `stage 1 · BookStore3To4: CategoryToCategory`).
            package var title: String
            /// Its statements, each on one line, values written in place and parameters as `:name`.
            package var statements: [String]
            /// Why it runs row by row in Swift instead of as SQL; nil when it is SQL.
            package var rowByRow: String?
            /// When the statements apply, and what else happens around them.
            package var notes: [String]

            /// A part.
            package init(title: String, statements: [String] = [], rowByRow: String? = nil, notes: [String] = []) {
                (self.title, self.statements, self.rowByRow, self.notes) = (title, statements, rowByRow, notes)
            }
        }

        /// Where the statements run (`in place: one transaction on the store itself …`).
        package var summary: String
        /// The parts, in the order they run.
        package var parts: [Part]

        /// A step's SQL.
        package init(summary: String, parts: [Part]) {
            (self.summary, self.parts) = (summary, parts)
        }

        /// A step's statements as ``MigrationPlan/statements(store:options:)`` compiled them: the
        /// same function `plan --sql` prints from, so the console and the command say the same.
        package init(_ step: StepStatements) {
            self.init(
                summary: step.summary,
                parts: step.parts.map { part in
                    Part(
                        title: part.title, statements: part.readableStatements, rowByRow: part.rowByRow,
                        notes: part.notes)
                })
        }
    }

    /// Every step's SQL for `plan` on the store at `path`, compiled once as the console opens
    /// (compiling reads the store's schema and writes nothing), or why it could not be: the
    /// console still opens, and the SQL view says why it has nothing to show.
    static func compiledSQL(_ plan: MigrationPlan, store path: String, options: MigrationOptions) -> (
        steps: [StepSQL], problem: String?
    ) {
        do {
            return (try plan.statements(store: path, options: options).map(StepSQL.init), nil)
        } catch {
            return ([], "\(error)")
        }
    }
}
