/// What one finished step of the plan shows in its result pane: how it was done, how it was
/// verified, the rows it reconciled, and what the step produced (sample rows, new columns).
package struct StepResult: Sendable, Equatable {
    /// A small table for a result pane: a query's columns and a few rows.
    package struct Table: Sendable, Equatable {
        package var title: String
        package var columns: [String]
        package var rows: [[String]]

        /// A table with a title.
        package init(title: String, columns: [String], rows: [[String]]) {
            (self.title, self.columns, self.rows) = (title, columns, rows)
        }
    }

    /// An entity's rows before and after.
    package struct RowCount: Sendable, Equatable {
        package var entity: String
        package var before: Int?, after: Int?

        /// An entity's rows before and after (nil: the entity is not in that version).
        package init(entity: String, before: Int?, after: Int?) {
            (self.entity, self.before, self.after) = (entity, before, after)
        }
    }

    /// Data the step dropped, as its plan said it would: a removed entity with its rows, a
    /// removed property (with the rows that held a value, where the plan counted them), links.
    package struct Drop: Sendable, Equatable {
        /// What, said for people (`PersonalInvitation`, `the attribute Order.status`).
        package var what: String
        /// The rows it held, when counted.
        package var rows: Int?
        /// Whether it is a whole entity.
        package var isEntity: Bool

        /// A drop of `what`.
        package init(what: String, rows: Int?, isEntity: Bool) {
            (self.what, self.rows, self.isEntity) = (what, rows, isEntity)
        }

        /// `PersonalInvitation 120000 rows → dropped`, `removed attribute Order.status (3 rows with a value)`.
        package var sentence: String {
            isEntity
                ? "\(what) \(rows.map { "\($0) row\($0 == 1 ? "" : "s")" } ?? "(rows not counted)") → dropped"
                : what + (rows.map { " (\($0) row\($0 == 1 ? "" : "s") with a value)" } ?? "")
        }
    }

    /// The step's 1-based position in the plan.
    package var index: Int
    /// The versions it went from and to.
    package var from: String, to: String

    /// `A → B`, or `at A` for a staged migration's handler (the only step that ends where it starts).
    package func versions(arrow: String) -> String { from == to ? "at \(from)" : "\(from) \(arrow) \(to)" }
    /// How: `lightweight, in place` or `mapping: A then B`.
    package var how: String
    /// Seconds it took, its pauses not counted.
    package var seconds: Double
    /// Seconds it waited in step mode, said apart.
    package var pausedSeconds: Double = 0
    /// How the result was checked, in one sentence.
    package var verification: String
    /// Rows per entity before → after, when the step counted them.
    package var rows: [RowCount]
    /// What the step produced, shown as tables.
    package var tables: [Table]
    /// What it dropped, entities first.
    package var dropped: [Drop]

    /// A step's result.
    package init(
        index: Int, from: String, to: String, how: String, seconds: Double, verification: String, rows: [RowCount],
        tables: [Table],
        dropped: [Drop] = []
    ) {
        (self.index, self.from, self.to, self.how, self.seconds) = (index, from, to, how, seconds)
        (self.verification, self.rows, self.tables, self.dropped) = (verification, rows, tables, dropped)
    }
}
