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

    /// The step's 1-based position in the plan.
    public var index: Int
    /// The versions it went from and to.
    public var from: String, to: String
    /// How: `lightweight, in place` or `mapping: A then B`.
    public var how: String
    /// Seconds it took.
    public var seconds: Double
    /// How the result was checked, in one sentence.
    public var verification: String
    /// Rows per entity before → after, when the step counted them.
    public var rows: [RowCount]
    /// What the step produced, shown as tables.
    public var tables: [Table]

    /// A step's result.
    public init(index: Int, from: String, to: String, how: String, seconds: Double, verification: String, rows: [RowCount], tables: [Table]) {
        (self.index, self.from, self.to, self.how, self.seconds) = (index, from, to, how, seconds)
        (self.verification, self.rows, self.tables) = (verification, rows, tables)
    }
}
