/// What one finished step of the plan shows in its result pane: how it was done, how it was
/// verified, the rows it reconciled, and what the step produced (sample rows, new columns).
public struct StepResult: Sendable, Equatable {
    /// A small table for a result pane: a query's columns and a few rows.
    public struct Table: Sendable, Equatable {
        public var title: String
        public var columns: [String]
        public var rows: [[String]]

        /// A table with a title.
        public init(title: String, columns: [String], rows: [[String]]) {
            (self.title, self.columns, self.rows) = (title, columns, rows)
        }
    }

    /// An entity's rows before and after.
    public struct RowCount: Sendable, Equatable {
        public var entity: String
        public var before: Int?, after: Int?

        /// An entity's rows before and after (nil: the entity is not in that version).
        public init(entity: String, before: Int?, after: Int?) { (self.entity, self.before, self.after) = (entity, before, after) }
    }

    /// Data the step dropped, as its plan said it would: a removed entity with its rows, a
    /// removed property (with the rows that held a value, where the plan counted them), links.
    public struct Drop: Sendable, Equatable {
        /// What, said for people (`PersonalInvitation`, `the attribute Order.status`).
        public var what: String
        /// The rows it held, when counted.
        public var rows: Int?
        /// Whether it is a whole entity.
        public var isEntity: Bool

        /// A drop of `what`.
        public init(what: String, rows: Int?, isEntity: Bool) { (self.what, self.rows, self.isEntity) = (what, rows, isEntity) }

        /// `PersonalInvitation 120000 rows → dropped`, `removed attribute Order.status (3 rows with a value)`.
        public var sentence: String {
            isEntity ? "\(what) \(rows.map { "\($0) row\($0 == 1 ? "" : "s")" } ?? "(rows not counted)") → dropped"
                : what + (rows.map { " (\($0) row\($0 == 1 ? "" : "s") with a value)" } ?? "")
        }
    }

    /// The step's 1-based position in the plan.
    public var index: Int
    /// The versions it went from and to.
    public var from: String, to: String
    /// How: `lightweight, in place` or `mapping: A then B`.
    public var how: String
    /// Seconds it took, its pauses not counted.
    public var seconds: Double
    /// Seconds it waited in step mode, said apart.
    public var pausedSeconds: Double = 0
    /// How the result was checked, in one sentence.
    public var verification: String
    /// Rows per entity before → after, when the step counted them.
    public var rows: [RowCount]
    /// What the step produced, shown as tables.
    public var tables: [Table]
    /// What it dropped, entities first.
    public var dropped: [Drop]

    /// A step's result.
    public init(index: Int, from: String, to: String, how: String, seconds: Double, verification: String, rows: [RowCount], tables: [Table],
                dropped: [Drop] = []) {
        (self.index, self.from, self.to, self.how, self.seconds) = (index, from, to, how, seconds)
        (self.verification, self.rows, self.tables, self.dropped) = (verification, rows, tables, dropped)
    }

    /// The rows of the entities it dropped, where counted.
    public var droppedRows: Int { dropped.filter(\.isEntity).compactMap(\.rows).reduce(0, +) }
}
